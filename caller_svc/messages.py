"""User-facing texts of the caller, in en/et/ru."""

from __future__ import annotations

from enum import StrEnum

from services.language import Lang


class FailureKind(StrEnum):
    CLIENT_ERROR = "CLIENT_ERROR"
    SERVICE_UNAVAILABLE = "SERVICE_UNAVAILABLE"
    SERVICE_TIMEOUT = "SERVICE_TIMEOUT"
    REDIRECT_NOT_FOLLOWED = "REDIRECT_NOT_FOLLOWED"
    CIRCUIT_BREAKER_OPEN = "CIRCUIT_BREAKER_OPEN"
    RESPONSE_TOO_LARGE = "RESPONSE_TOO_LARGE"
    EGRESS_REFUSED = "EGRESS_REFUSED"


FAILURE_MESSAGES: dict[FailureKind, dict[Lang, str]] = {
    FailureKind.CLIENT_ERROR: {
        "en": "The service could not process the request. Please check the details you gave and try again.",
        "et": "Teenus ei saanud päringut töödelda. Palun kontrollige esitatud andmeid ja proovige uuesti.",
        "ru": "Сервис не смог обработать запрос. Пожалуйста, проверьте указанные данные и попробуйте снова.",
    },
    FailureKind.SERVICE_UNAVAILABLE: {
        "en": "The service is currently unavailable. Please try again later.",
        "et": "Teenus ei ole praegu kättesaadav. Palun proovige hiljem uuesti.",
        "ru": "Сервис сейчас недоступен. Пожалуйста, попробуйте позже.",
    },
    FailureKind.SERVICE_TIMEOUT: {
        "en": "The service did not respond in time. Please try again later.",
        "et": "Teenus ei vastanud õigeaegselt. Palun proovige hiljem uuesti.",
        "ru": "Сервис не ответил вовремя. Пожалуйста, попробуйте позже.",
    },
    FailureKind.REDIRECT_NOT_FOLLOWED: {
        "en": "The service tried to redirect the request elsewhere, which is not allowed for safety reasons.",
        "et": "Teenus püüdis päringut mujale suunata, mis pole turvalisuse tõttu lubatud.",
        "ru": "Сервис попытался перенаправить запрос в другое место, а это запрещено ради безопасности.",
    },
    FailureKind.CIRCUIT_BREAKER_OPEN: {
        "en": "The service is temporarily unavailable after repeated errors. Please try again in a moment.",
        "et": "Teenus on korduvate vigade tõttu ajutiselt kättesaamatu. Palun proovige varsti uuesti.",
        "ru": "Сервис временно недоступен из-за повторяющихся ошибок. Пожалуйста, попробуйте чуть позже.",
    },
    FailureKind.RESPONSE_TOO_LARGE: {
        "en": "The service returned more data than can be shown. Please narrow down the request.",
        "et": "Teenus tagastas rohkem andmeid, kui on võimalik näidata. Palun täpsustage päringut.",
        "ru": "Сервис вернул больше данных, чем можно показать. Пожалуйста, уточните запрос.",
    },
    FailureKind.EGRESS_REFUSED: {
        "en": "This service cannot be called from here for security reasons.",
        "et": "Seda teenust ei saa turvalisuse tõttu siit välja kutsuda.",
        "ru": "Этот сервис нельзя вызвать отсюда по соображениям безопасности.",
    },
}


def failure_message(kind: FailureKind, lang: Lang) -> str:
    return FAILURE_MESSAGES[kind][lang]


# A price per MWh said per kWh beside it (caller_svc.units): cents per kilowatt-hour.
PER_KWH_UNIT: dict[Lang, str] = {"en": "cents/kWh", "et": "senti/kWh", "ru": "цента/кВт·ч"}
