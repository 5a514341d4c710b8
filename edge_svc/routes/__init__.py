"""HTTP routes of the edge, one concern per module."""
