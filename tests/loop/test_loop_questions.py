"""Localized clarifying questions (the token splitter is tested in tests/test_tokens.py)."""

from __future__ import annotations

from loop_svc import questions
from loop_svc.schema import EndpointSpec, ParamSpec


def _params(endpoint: EndpointSpec, *names: str) -> list[ParamSpec]:
    return [p for p in endpoint.params if p.name in names]


def test_date_range_question_in_three_languages(holidays: EndpointSpec) -> None:
    missing = _params(holidays, "validFrom", "validTo")
    assert questions.clarifying_question(missing, "en") == (
        "Which dates should I look up? Please give a start and end date (YYYY-MM-DD)."
    )
    assert questions.clarifying_question(missing, "et") == (
        "Milliste kuupäevade kohta otsin? Palun anna algus- ja lõppkuupäev (AAAA-KK-PP)."
    )
    assert questions.clarifying_question(missing, "ru") == (
        "За какие даты искать? Пожалуйста, укажите начальную и конечную дату (ГГГГ-ММ-ДД)."
    )


def test_one_question_names_everything_missing(holidays: EndpointSpec, vehicle_tax: EndpointSpec) -> None:
    missing = [*_params(holidays, "countryIsoCode", "validFrom", "validTo"), vehicle_tax.params[0]]
    assert questions.clarifying_question(missing, "en") == (
        "To look this up I need a few details: the country, the start and end dates (YYYY-MM-DD) "
        "and the vehicle registration number."
    )
    et = questions.clarifying_question(missing, "et")
    assert et.startswith("Selle leidmiseks vajan") and "riik" in et and "registreerimisnumber" in et
    ru = questions.clarifying_question(missing, "ru")
    assert "страна" in ru and "начальная и конечная даты" in ru


def test_single_param_questions_use_human_words(holidays: EndpointSpec, vehicle_tax: EndpointSpec) -> None:
    assert questions.clarifying_question(_params(holidays, "countryIsoCode"), "et") == (
        "Millise riigi kohta otsin?"
    )
    assert questions.clarifying_question(_params(holidays, "validTo"), "en").startswith("Until which date")
    assert questions.clarifying_question([vehicle_tax.params[1]], "ru") == "За какой год?"
    generic = ParamSpec(
        name="postalCode", type="string", required=True, description="Postal code of the area"
    )
    assert questions.clarifying_question([generic], "en") == "Could you tell me the postal code of the area?"
    # No Estonian description: what is wanted, never the English name inside the sentence.
    assert questions.clarifying_question([generic], "et") == "Palun täpsusta: mida täpsemalt otsin."
    localized = generic.model_copy(update={"descriptions": {"et": "Piirkonna postiindeks"}})
    assert questions.clarifying_question([localized], "et") == "Palun täpsusta: piirkonna postiindeks."
    choice = ParamSpec(name="holidayType", enum=["Public", "School"], description="Kind of holiday")
    assert questions.clarifying_question([choice], "en") == (
        "Could you tell me the kind of holiday (one of: Public, School)?"
    )


def test_a_parameter_of_no_built_in_kind_is_named_in_the_citizens_language() -> None:
    """The catalogue's localized description names it; the English name never appears in
    an Estonian or Russian sentence when the catalogue gives one."""
    number = ParamSpec(
        name="applicationNumber",
        required=True,
        description="The application number from the ID card or passport application confirmation",
        descriptions={"et": "Taotluse number (nt A1234567)", "ru": "Номер заявления (например A1234567)"},
    )
    assert questions.clarifying_question([number], "et") == "Palun täpsusta: taotluse number."
    assert questions.clarifying_question([number], "ru") == "Пожалуйста, уточните: номер заявления."
    assert questions.clarifying_question([number], "en") == "Could you tell me the application number?"
    for lang in ("et", "ru"):
        assert "application" not in questions.clarifying_question([number], lang).lower()  # type: ignore[arg-type]
