"""Recent Riigikogu (Estonian parliament) votings: a fixed, realistic record.
The Riigikogu has 101 members; for + against + abstained + absent = 101."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

_ID_NAMESPACE = uuid.UUID("0b7c6a52-9e1f-4d8a-8f43-2c5a1e6d9b37")
MEMBERS = 101


@dataclass(frozen=True)
class Voting:
    number: int
    date: str
    time: str
    title: str
    title_en: str
    kind: str
    votes_for: int
    against: int
    abstained: int

    def as_json(self) -> dict[str, object]:
        absent = MEMBERS - self.votes_for - self.against - self.abstained
        return {
            "uuid": str(uuid.uuid5(_ID_NAMESPACE, f"{self.date}:{self.number}")),
            "votingNumber": self.number,
            "date": self.date,
            "time": self.time,
            "title": self.title,
            "titleEn": self.title_en,
            "type": self.kind,
            "result": {
                "for": self.votes_for,
                "against": self.against,
                "abstained": self.abstained,
                "absent": absent,
            },
            "accepted": self.votes_for > self.against,
        }


_FINAL = "Lõpphääletus"
_MOTION = "Ettepaneku hääletus"

# Newest first.
# fmt: off
VOTINGS = [
    Voting(412, "2026-02-18", "14:12", "Mootorsõidukimaksu seaduse muutmise seaduse eelnõu (612 SE)",
           "Motor Vehicle Tax Act Amendment Bill (612 SE)", _FINAL, 53, 38, 1),
    Voting(411, "2026-02-18", "13:47", "Kliimakindla majanduse seaduse eelnõu (581 SE)",
           "Climate Resilient Economy Bill (581 SE)", _FINAL, 55, 27, 4),
    Voting(408, "2026-02-11", "15:03",
           "Eelnõu 598 SE esimese lugemise katkestamise ettepanek",
           "Motion to reject Bill 598 SE at the first reading", _MOTION, 29, 56, 0),
    Voting(405, "2026-02-04", "14:30", "Põhiseaduse § 57 muutmise seaduse eelnõu (536 SE)",
           "Bill to amend § 57 of the Constitution (536 SE)", _FINAL, 81, 12, 2),
    Voting(401, "2026-01-28", "14:05", "Relvaseaduse muutmise seaduse eelnõu (559 SE)",
           "Weapons Act Amendment Bill (559 SE)", _FINAL, 67, 9, 5),
    Voting(398, "2026-01-21", "13:58", "Tulumaksuseaduse muutmise seaduse eelnõu (574 SE)",
           "Income Tax Act Amendment Bill (574 SE)", _FINAL, 52, 41, 0),
    Voting(392, "2026-01-14", "14:22",
           "Riigikogu otsuse „Umbusalduse avaldamine haridus- ja teadusministrile“ eelnõu",
           "Motion of no confidence in the Minister of Education and Research", _MOTION, 39, 0, 0),
    Voting(387, "2025-12-10", "15:41", "2026. aasta riigieelarve seaduse eelnõu (720 SE)",
           "2026 State Budget Bill (720 SE)", _FINAL, 54, 40, 0),
    Voting(384, "2025-12-03", "14:09", "Käibemaksuseaduse muutmise seaduse eelnõu (701 SE)",
           "Value Added Tax Act Amendment Bill (701 SE)", _FINAL, 51, 33, 2),
    Voting(379, "2025-11-26", "13:36", "Kaitseväeteenistuse seaduse muutmise seaduse eelnõu (688 SE)",
           "Defence Forces Service Act Amendment Bill (688 SE)", _FINAL, 78, 3, 6),
    Voting(371, "2025-11-12", "14:51", "Atmosfääriõhu kaitse seaduse muutmise seaduse eelnõu (664 SE)",
           "Atmospheric Air Protection Act Amendment Bill (664 SE)", _FINAL, 59, 21, 3),
    Voting(366, "2025-11-05", "15:18", "Perehüvitiste seaduse muutmise seaduse eelnõu (650 SE)",
           "Family Benefits Act Amendment Bill (650 SE)", _FINAL, 48, 44, 1),
    Voting(360, "2025-10-22", "14:02",
           "Kohaliku omavalitsuse korralduse seaduse muutmise seaduse eelnõu (631 SE)",
           "Local Government Organisation Act Amendment Bill (631 SE)", _FINAL, 61, 19, 2),
    Voting(355, "2025-10-15", "13:44", "Meediateenuste seaduse muutmise seaduse eelnõu (627 SE)",
           "Media Services Act Amendment Bill (627 SE)", _FINAL, 57, 25, 7),
    Voting(349, "2025-10-08", "14:37", "Eelnõu 615 SE teise lugemise jätkamise ettepanek",
           "Motion to continue the second reading of Bill 615 SE", _MOTION, 60, 30, 0),
]
# fmt: on

DEFAULT_LIMIT = 10
MAX_LIMIT = 100


def recent_votings(limit: int = DEFAULT_LIMIT) -> list[dict[str, object]]:
    return [voting.as_json() for voting in VOTINGS[:limit]]
