"""Operator tooling for the catalogue: `atc ingest`, `atc index`, `atc import-openapi`."""
