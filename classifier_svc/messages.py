"""Localized replies the classifier gives itself (out-of-domain, greetings)."""

from __future__ import annotations

from services.language import Lang

OUT_OF_DOMAIN: dict[Lang, str] = {
    "en": (
        "I'm sorry, I can't help with that here. I can look things up in the public services "
        "connected to this assistant, for example public holidays, vehicle tax, addresses, "
        "electricity prices or parliament votings."
    ),
    "et": (
        "Vabandust, sellega ma siin aidata ei saa. Saan otsida infot assistendiga ühendatud "
        "avalikest teenustest, näiteks riigipühad, sõidukimaks, aadressid, elektri hinnad või "
        "Riigikogu hääletused."
    ),
    "ru": (
        "Извините, с этим я здесь помочь не могу. Я могу найти информацию в подключённых "
        "государственных сервисах: например, государственные праздники, налог на автомобиль, "
        "адреса, цены на электроэнергию или голосования в Рийгикогу."
    ),
}

# When the search behind every layer fails (the indexer restarting): no layer can
# decide, so the citizen is told to try again instead of getting a server error.
SEARCH_UNAVAILABLE: dict[Lang, str] = {
    "en": (
        "I can't look this up right now: the search is temporarily unavailable. Please try again in a moment."
    ),
    "et": (
        "Ma ei saa seda praegu otsida: otsing on ajutiselt kättesaamatu. Palun proovige hetke pärast uuesti."
    ),
    "ru": "Сейчас я не могу это найти: поиск временно недоступен. Пожалуйста, попробуйте чуть позже.",
}

GREETING: dict[Lang, str] = {
    "en": "Hello! How can I help you today?",
    "et": "Tere! Kuidas saan teid täna aidata?",
    "ru": "Здравствуйте! Чем я могу вам помочь?",
}

THANKS: dict[Lang, str] = {
    "en": "You're welcome! Is there anything else I can help with?",
    "et": "Palun! Kas saan veel millegagi aidata?",
    "ru": "Пожалуйста! Могу ли я помочь чем-то ещё?",
}

HOW_ARE_YOU: dict[Lang, str] = {
    "en": "I'm fine, thank you! How can I help you today?",
    "et": "Aitäh, mul läheb hästi! Kuidas saan teid täna aidata?",
    "ru": "Спасибо, у меня всё хорошо! Чем я могу вам помочь?",
}

CAPABILITIES: dict[Lang, str] = {
    "en": (
        "I can look things up for you in the public services connected to this assistant, for "
        "example public holidays, school holidays, vehicle tax, addresses, electricity prices or "
        "parliament votings. Just ask, and I will ask for anything I still need."
    ),
    "et": (
        "Saan teie eest otsida infot assistendiga ühendatud avalikest teenustest, näiteks "
        "riigipühad, koolivaheajad, sõidukimaks, aadressid, elektri hinnad või Riigikogu "
        "hääletused. Küsige julgelt – kui mul on veel midagi vaja, küsin üle."
    ),
    "ru": (
        "Я могу найти для вас информацию в подключённых государственных сервисах: например, "
        "праздники, школьные каникулы, налог на автомобиль, адреса, цены на электроэнергию или "
        "голосования в Рийгикогу. Просто спросите, а недостающее я уточню."
    ),
}
