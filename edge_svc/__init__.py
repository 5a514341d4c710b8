"""The HTTP edge: chat turns in (JSON), TurnEvents out as SSE frames, plus a chat page
and operator routes for the endpoint catalogue."""
