"""An offline demo world: small, real HTTP APIs shaped like the seed's examples
(OpenHolidays, vehicle tax, In-ADS, Elering prices, Riigikogu votings).
`devtools.demo_apis.app.create_app()` builds the Starlette app."""
