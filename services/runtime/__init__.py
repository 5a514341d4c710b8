"""The gRPC runtime every service shares: server bootstrap, health, reflection,
graceful shutdown, request-id/logging interceptors and rich error statuses."""
