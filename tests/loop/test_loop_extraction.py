"""Rule-based extraction: the holidays scenario in en/et/ru and every value kind."""

from __future__ import annotations

import pytest

from loop_svc.extraction import RuleExtractor, yes_no
from loop_svc.schema import EndpointSpec, ParamSpec


@pytest.mark.parametrize(
    ("message", "language", "code"),
    [
        ("What are the public holidays in Estonia?", "en", "EE"),
        ("Millised on Eesti riigipühad?", "et", "EE"),
        ("Millised riigipühad on Eestis?", "et", "EE"),
        ("Какие праздники в Эстонии?", "ru", "EE"),
        ("Same for Latvia", "en", "LV"),
        ("Aga Lätis?", "et", "LV"),
        ("А в Латвии?", "ru", "LV"),
        ("Soome", "et", "FI"),
        ("holidays in Germany", "en", "DE"),
        ("EE", "en", "EE"),
        ("Праздники в России", "ru", "RU"),
    ],
)
def test_country_from_names_in_three_languages(
    extractor: RuleExtractor, holidays: EndpointSpec, message: str, language: str, code: str
) -> None:
    values = extractor.extract(message, holidays.params, language=language)  # type: ignore[arg-type]
    assert values.get("countryIsoCode") == code


def test_correction_names_the_new_country_not_the_replaced_one(
    extractor: RuleExtractor, holidays: EndpointSpec
) -> None:
    params = holidays.params
    assert extractor.extract("No, use Russia instead of Estonia", params, language="en") == {
        "countryIsoCode": "RU"
    }
    assert extractor.extract("Läti Eesti asemel", params, language="et")["countryIsoCode"] == "LV"
    assert extractor.extract("Латвия вместо Эстонии", params, language="ru")["countryIsoCode"] == "LV"


def test_ordinary_words_are_not_countries(extractor: RuleExtractor, holidays: EndpointSpec) -> None:
    for message in ("I don't know, it is OK", "Is it on TV?", "Что из того следует?"):
        assert "countryIsoCode" not in extractor.extract(message, holidays.params, language="en")


@pytest.mark.parametrize(
    ("message", "language"),
    [
        ("2026-01-01 to 2026-12-31", "en"),
        ("This year, 2026-01-01 to 2026-12-31", "en"),
        ("from 2026-01-01 until 2026-12-31", "en"),
        ("2026-01-01 kuni 2026-12-31", "et"),
        ("с 2026-01-01 по 2026-12-31", "ru"),
        ("2026-01-01 - 2026-12-31", "en"),
        ("1.01.2026 kuni 31.12.2026", "et"),
        ("1. jaanuar 2026 kuni 31. detsember 2026", "et"),
        ("с 1 января 2026 по 31 декабря 2026", "ru"),
        ("January 1, 2026 to December 31, 2026", "en"),
        ("2026", "en"),
        ("in 2026", "en"),
        ("2026. aastal", "et"),
        ("в 2026 году", "ru"),
        ("this year", "en"),
    ],
)
def test_date_ranges_fill_the_from_to_pair(
    extractor: RuleExtractor, holidays: EndpointSpec, message: str, language: str
) -> None:
    values = extractor.extract(message, holidays.params, language=language)  # type: ignore[arg-type]
    assert values == {"validFrom": "2026-01-01", "validTo": "2026-12-31"}


def test_reversed_range_and_single_dates(extractor: RuleExtractor, holidays: EndpointSpec) -> None:
    params = holidays.params
    assert extractor.extract("until 2026-12-31 from 2026-01-01", params, language="en") == {
        "validFrom": "2026-01-01",
        "validTo": "2026-12-31",
    }
    # One day, one month.
    assert extractor.extract("on 2026-02-24", params, language="en") == {
        "validFrom": "2026-02-24",
        "validTo": "2026-02-24",
    }
    assert extractor.extract("May 2026", params, language="en") == {
        "validFrom": "2026-05-01",
        "validTo": "2026-05-31",
    }
    # With the start known, a lone date closes the range.
    assert extractor.extract("2026-06-30", params, language="en", known={"validFrom": "2026-01-01"}) == {
        "validTo": "2026-06-30"
    }
    assert extractor.extract("alates 2026-03-01", params, language="et") == {"validFrom": "2026-03-01"}
    # Relative days count from today (2026-03-10 in these tests).
    assert extractor.extract("homme", params, language="et") == {
        "validFrom": "2026-03-11",
        "validTo": "2026-03-11",
    }


def test_pairs_by_name_start_end_and_date_from_to(extractor: RuleExtractor) -> None:
    params = [
        ParamSpec(name="startDate", type="date", required=True),
        ParamSpec(name="endDate", type="date", required=True),
        ParamSpec(name="dateFrom", type="date"),
        ParamSpec(name="dateTo", type="date"),
    ]
    values = extractor.extract("2026-04-01 to 2026-04-30", params, language="en")
    assert values == {
        "startDate": "2026-04-01",
        "endDate": "2026-04-30",
        "dateFrom": "2026-04-01",
        "dateTo": "2026-04-30",
    }


def test_datetime_params_are_normalised_to_utc_seconds(extractor: RuleExtractor) -> None:
    params = [
        ParamSpec(name="start", type="datetime", required=True),
        ParamSpec(name="end", type="datetime", required=True),
    ]
    assert extractor.extract("2026-01-01 to 2026-01-31", params, language="en") == {
        "start": "2026-01-01T00:00:00Z",
        "end": "2026-01-31T23:59:59Z",
    }
    assert extractor.extract("2026-01-01T10:30 to 2026-01-02T01:00:00+02:00", params, language="en") == {
        "start": "2026-01-01T10:30:00Z",
        "end": "2026-01-01T23:00:00Z",
    }
    assert extractor.extract("2026", params, language="en") == {
        "start": "2026-01-01T00:00:00Z",
        "end": "2026-12-31T23:59:59Z",
    }


def test_integer_year_registration_and_free_text(
    extractor: RuleExtractor, vehicle_tax: EndpointSpec, address_search: EndpointSpec
) -> None:
    params = [*vehicle_tax.params, address_search.params[0]]
    assert extractor.extract("my car 123ABC, tax for 2026", params, language="en") == {
        "regNr": "123ABC",
        "calculationYear": "2026",
    }
    assert extractor.extract("123 abc", params, language="et", asked=["regNr"]) == {"regNr": "123ABC"}
    # Free text only from a reply to a question that asked for it; a street with a
    # house number is an address wherever it stands.
    assert extractor.extract("Viru tn 4, Tallinn", params, language="et") == {"address": "Viru tn 4, Tallinn"}
    assert extractor.extract("kesklinnas", params, language="et") == {}
    assert extractor.extract("Viru tn 4, Tallinn", params, language="et", asked=["address"]) == {
        "address": "Viru tn 4, Tallinn"
    }
    assert extractor.extract(
        "Viru tn 4, Tallinn and year 2026", params, language="en", asked=["address", "calculationYear"]
    ) == {"address": "Viru tn 4, Tallinn", "calculationYear": "2026"}


@pytest.mark.parametrize(
    ("message", "address"),
    [
        ("Find the address Viru tn 4, Tallinn", "Viru tn 4, Tallinn"),
        ("Find the address Viru 4 Tallinn and also calculate the vehicle tax", "Viru 4, Tallinn"),
        ("Otsi aadressi Rüütli 10 Tartu", "Rüütli 10, Tartu"),
        ("Найди адрес Нарвское шоссе 5", "Narva mnt 5"),
        ("Can you find an address for me?", None),
        ("What is the address register?", None),
    ],
)
def test_address_after_a_keyword(
    extractor: RuleExtractor, address_search: EndpointSpec, message: str, address: str | None
) -> None:
    values = extractor.extract(message, address_search.params, language="en")
    assert values.get("address") == address


def test_numbers_enums_booleans_and_languages(extractor: RuleExtractor, holidays: EndpointSpec) -> None:
    params = [
        ParamSpec(name="limit", type="integer"),
        ParamSpec(name="maxPrice", type="number"),
        ParamSpec(name="holidayType", type="string", enum=["Public", "School", "Bank_holiday"]),
        ParamSpec(name="includeWeekends", type="boolean"),
    ]
    assert extractor.extract("school holidays, limit 5, max price 12,5", params, language="en") == {
        "limit": "5",
        "maxPrice": "12.5",
        "holidayType": "School",
    }
    assert extractor.extract("bank holiday", params, language="en") == {"holidayType": "Bank_holiday"}
    assert extractor.extract("PUBLIC ones", params, language="en") == {"holidayType": "Public"}
    # A yes/no only answers a boolean that was asked alone.
    assert extractor.extract("jah", params, language="et", asked=["includeWeekends"]) == {
        "includeWeekends": "true"
    }
    assert extractor.extract("нет", params, language="ru", asked=["includeWeekends"]) == {
        "includeWeekends": "false"
    }
    assert extractor.extract("yes", params, language="en") == {}
    assert extractor.extract("7", params, language="en", asked=["limit"]) == {"limit": "7"}
    # The optional language is only taken when clearly stated, in the description's case.
    assert extractor.extract("Eesti riigipühad inglise keeles", holidays.params, language="et") == {
        "countryIsoCode": "EE",
        "languageIsoCode": "EN",
    }
    assert extractor.extract("holidays in Finland in Estonian", holidays.params, language="en") == {
        "countryIsoCode": "FI",
        "languageIsoCode": "ET",
    }
    assert extractor.extract("Праздники Эстонии на русском", holidays.params, language="ru") == {
        "countryIsoCode": "EE",
        "languageIsoCode": "RU",
    }


def test_yes_no_in_three_languages() -> None:
    for reply in ("yes", "Jah, jätkame", "да, продолжим", "ok", "yes, no problem", "да, не против"):
        assert yes_no(reply) is True
    for reply in ("no", "ei", "нет", "no thanks"):
        assert yes_no(reply) is False
    for reply in ("maybe later", "2026", ""):
        assert yes_no(reply) is None


def test_year_corrections_and_reversed_years(extractor: RuleExtractor, holidays: EndpointSpec) -> None:
    dates = {"validFrom": "2026-01-01", "validTo": "2026-12-31"}
    assert extractor.extract("2026 instead of 2025", holidays.params, language="en") == dates
    both = extractor.extract("2026 2025", holidays.params, language="en")
    assert (both["validFrom"], both["validTo"]) == ("2025-01-01", "2026-12-31")


def test_each_unpaired_date_parameter_takes_the_next_date(extractor: RuleExtractor) -> None:
    params = [ParamSpec(name="arrivalDate", type="date"), ParamSpec(name="checkoutDay", type="date")]
    assert extractor.extract("arrive 2026-05-01 and leave 2026-05-10", params, language="en") == {
        "arrivalDate": "2026-05-01",
        "checkoutDay": "2026-05-10",
    }


def test_free_text_leaves_out_what_other_parameters_took(
    extractor: RuleExtractor, address_search: EndpointSpec, holidays: EndpointSpec
) -> None:
    params = [address_search.params[0], holidays.params[0]]
    values = extractor.extract(
        "Viru 4 Tallinn, Estonia", params, language="en", asked=["address", "countryIsoCode"]
    )
    assert values == {"address": "Viru 4, Tallinn", "countryIsoCode": "EE"}
