"""Developer tooling: the `atc` CLI, the `atc up` launcher and its supervisor, the embedded
Redis, the demo APIs, catalogue and calibration tools, the proto generator.

Nothing a service runs in production imports this package (tests/test_layout.py checks
that indexer_svc, classifier_svc, loop_svc, caller_svc, edge_svc and the shared
modules of services/ never do); it imports the services, not the other way round."""
