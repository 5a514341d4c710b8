"""A small In-ADS-like address register: real Estonian addresses with postal
codes and (approximate) WGS84 coordinates, and a forgiving search over them."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass


@dataclass(frozen=True)
class Address:
    street: str
    settlement: str
    municipality: str
    county: str
    postal_code: str
    latitude: float
    longitude: float
    ads_oid: str

    @property
    def full_address(self) -> str:
        return f"{self.county}, {self.municipality}, {self.street}, {self.postal_code}"

    def as_json(self) -> dict[str, object]:
        return {
            "fullAddress": self.full_address,
            "address": f"{self.street}, {self.settlement}",
            "postalCode": self.postal_code,
            "settlement": self.settlement,
            "municipality": self.municipality,
            "county": self.county,
            "latitude": self.latitude,
            "longitude": self.longitude,
            "adsOid": self.ads_oid,
        }


def _tln(street: str, district: str, postal: str, lat: float, lon: float, oid: str) -> Address:
    return Address(street, "Tallinn", f"Tallinn, {district} linnaosa", "Harju maakond", postal, lat, lon, oid)


# fmt: off
ADDRESSES = [
    _tln("Viru tn 4", "Kesklinna", "10140", 59.43682, 24.74943, "ME00711941"),
    _tln("Raekoja plats 1", "Kesklinna", "10146", 59.43717, 24.74528, "ME00710402"),
    _tln("Lossi plats 1a", "Kesklinna", "15165", 59.43555, 24.73906, "ME00710370"),
    _tln("Narva mnt 7", "Kesklinna", "10117", 59.43796, 24.76160, "ME00711102"),
    _tln("Pärnu mnt 10", "Kesklinna", "10148", 59.43314, 24.74620, "ME00711214"),
    _tln("Estonia pst 4", "Kesklinna", "10148", 59.43390, 24.74985, "ME00710155"),
    _tln("Rävala pst 5", "Kesklinna", "10143", 59.43260, 24.75430, "ME00711301"),
    _tln("Weizenbergi tn 34", "Kesklinna", "10127", 59.43710, 24.79560, "ME00711903"),
    _tln("Pirita tee 26", "Pirita", "12011", 59.46210, 24.82890, "ME00711215"),
    _tln("Sõpruse pst 5", "Kristiine", "10615", 59.42300, 24.70450, "ME00711488"),
    _tln("Akadeemia tee 3", "Mustamäe", "12618", 59.39530, 24.66420, "ME00710011"),
    Address("Ülikooli tn 18", "Tartu", "Tartu linn", "Tartu maakond", "50090", 58.38105, 26.71990,
            "ME00720033"),
    Address("Raekoja plats 1a", "Tartu", "Tartu linn", "Tartu maakond", "50089", 58.38038, 26.72221,
            "ME00720401"),
    Address("Riia tn 15", "Tartu", "Tartu linn", "Tartu maakond", "51010", 58.37640, 26.72760, "ME00720410"),
    Address("Ringtee tn 75", "Tartu", "Tartu linn", "Tartu maakond", "50105", 58.35820, 26.67890,
            "ME00720388"),
    Address("Suur-Sepa tn 16", "Pärnu", "Pärnu linn", "Pärnu maakond", "80098", 58.38350, 24.50250,
            "ME00730511"),
    Address("Rüütli tn 1", "Pärnu", "Pärnu linn", "Pärnu maakond", "80010", 58.38470, 24.49880, "ME00730402"),
    Address("Ranna pst 1", "Pärnu", "Pärnu linn", "Pärnu maakond", "80010", 58.37840, 24.49990, "ME00730377"),
    Address("Peetri plats 5", "Narva", "Narva linn", "Ida-Viru maakond", "20308", 59.37720, 28.19780,
            "ME00740211"),
    Address("Tallinna tn 10", "Kuressaare", "Saaremaa vald", "Saare maakond", "93819", 58.25230, 22.48520,
            "ME00750106"),
    Address("Linnu tee 1", "Viljandi", "Viljandi linn", "Viljandi maakond", "71004", 58.36260, 25.59000,
            "ME00760092"),
]

# Street type words as people type them → as the register writes them.
_STREET_TYPES = {
    "tänav": "tn", "tanav": "tn", "street": "tn", "st": "tn",
    "maantee": "mnt", "puiestee": "pst", "väljak": "plats",
}
# fmt: on


def _fold(text: str) -> str:
    """Lower case without diacritics, so 'Parnu' finds 'Pärnu'."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _tokens(text: str) -> list[str]:
    words = re.findall(r"[\w-]+", _fold(text))
    return [_fold(_STREET_TYPES.get(w, w)) for w in words]


def search_addresses(query: str, limit: int = 10) -> list[Address]:
    """Addresses containing every word of the query (street numbers must match exactly)."""
    wanted = _tokens(query)
    if not wanted:
        return []
    scored: list[tuple[int, Address]] = []
    for address in ADDRESSES:
        haystack = _tokens(
            " ".join(
                [
                    address.street,
                    address.settlement,
                    address.municipality,
                    address.county,
                    address.postal_code,
                ]
            )
        )
        hits = sum(
            1
            for word in wanted
            if any(h == word or (not word.isdigit() and h.startswith(word)) for h in haystack)
        )
        if hits == len(wanted):
            scored.append((len(haystack), address))
    scored.sort(key=lambda pair: pair[0])
    return [address for _, address in scored[:limit]]
