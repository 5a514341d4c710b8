"""Demo Bürokratt-style service: the status of an ID-card or passport application.

Called the way Bürokratt services are: POST {chatId, authorId, input: [applicationNumber]}.
The status is derived from the number itself (no database): the same number always
gives the same answer, and every status occurs. Texts come in en/et/ru in the
OpenHolidays multilingual shape, so the caller's formatter picks the user's language.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

_NUMBER = re.compile(r"^([A-Z]{1,3})?(\d{5,10})$")

STATUSES: tuple[dict[str, str], ...] = (
    {"en": "Received", "et": "Vastu võetud", "ru": "Принято"},
    {"en": "In processing", "et": "Menetluses", "ru": "В обработке"},
    {"en": "Ready for pickup", "et": "Valmis kättesaamiseks", "ru": "Готово к выдаче"},
)
STATUS_CODES = ("received", "in_processing", "ready_for_pickup")
DOCUMENTS = {
    "id_card": {"en": "ID card", "et": "ID-kaart", "ru": "ID-карта"},
    "passport": {"en": "Passport", "et": "Pass", "ru": "Паспорт"},
}
# The office's address, and what it is in each language (the status and the document
# come in en/et/ru; so does the office, or an Estonian answer would say "service office").
PICKUP_ADDRESSES = (
    "Tallinn, Tammsaare tee 47",
    "Tartu, Riia 132",
    "Pärnu, Ringi 10",
    "Narva, Rahu 38",
    "Jõhvi, Rahu 38",
)
OFFICE_KIND = {"en": "PPA service office", "et": "PPA teenindus", "ru": "бюро обслуживания PPA"}
PICKUP_OFFICES = tuple(
    {lang: f"{address} ({kind})" for lang, kind in OFFICE_KIND.items()} for address in PICKUP_ADDRESSES
)


class InvalidApplicationNumber(ValueError):
    pass


@dataclass(frozen=True)
class ServiceCall:
    chat_id: str
    author_id: str
    inputs: list[str]


def parse_service_call(body: Any) -> ServiceCall:
    """The Bürokratt service body; raises ValueError naming the bad field."""
    if not isinstance(body, dict):
        raise ValueError("body: must be a JSON object")
    inputs = body.get("input")
    if not isinstance(inputs, list) or not all(isinstance(v, str | int) for v in inputs):
        raise ValueError("input: must be a list of entity values")
    return ServiceCall(str(body.get("chatId", "")), str(body.get("authorId", "")), [str(v) for v in inputs])


def normalise_number(raw: str) -> str:
    return re.sub(r"[\s\-–/.]", "", raw).upper().lstrip("#№")


def _lang_entries(texts: dict[str, str]) -> list[dict[str, str]]:
    return [{"language": lang.upper(), "text": text} for lang, text in texts.items()]


def application_status(raw_number: str) -> dict[str, Any]:
    number = normalise_number(raw_number)
    match = _NUMBER.match(number)
    if match is None:
        raise InvalidApplicationNumber(
            f"'{raw_number}' is not an application number (up to 3 letters and 5–10 digits, e.g. A1234567)"
        )
    prefix, digits = match.group(1) or "", match.group(2)
    checksum = sum(int(d) * (i + 1) for i, d in enumerate(digits))
    stage = checksum % len(STATUSES)
    document = "passport" if prefix.startswith("P") else "id_card"
    result: dict[str, Any] = {
        "applicationNumber": number,
        "document": _lang_entries(DOCUMENTS[document]),
        "status": _lang_entries(STATUSES[stage]),
        "statusCode": STATUS_CODES[stage],
    }
    if STATUS_CODES[stage] == "ready_for_pickup":
        result["pickupOffice"] = _lang_entries(PICKUP_OFFICES[checksum % len(PICKUP_OFFICES)])
    return result
