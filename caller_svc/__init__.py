"""caller_svc: calls external HTTP APIs safely, keeps results in the result
store and formats answers (atc.caller.v1.CallerService)."""
