"""Where a name in a sentence begins and ends: with a credential after a comma, across a
spaced dash, with initials, a house number before a street, a capital "The" inside a
sentence; and a work named before "by" its author in an offer."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from loop_svc.extraction import CountryNames, RuleExtractor
from loop_svc.extraction.dialogue import Message, track
from loop_svc.extraction.spans import name_spans
from loop_svc.schema import ParamSpec

FIRST = st.sampled_from(["Anne", "Richard", "Nina", "Claudio", "Maria", "Tom"])
LAST = st.sampled_from(["Han", "Glogau", "Birnbaum", "Bet", "Smith", "Dossett"])
CREDENTIAL = st.sampled_from(["M.D.", "MD", "DO", "DDS", "Inc", "PhD"])
FRAME = st.sampled_from(["I want to see {} please", "How about {} in Fremont?", "book {} for me", "{} works"])


@settings(max_examples=60, deadline=None)
@given(first=FIRST, last=LAST, credential=CREDENTIAL, initial=st.sampled_from(["", "R. ", "G "]), frame=FRAME)
def test_a_name_keeps_its_initials_and_credential(
    first: str, last: str, credential: str, initial: str, frame: str
) -> None:
    name = f"{first} {initial}{last}, {credential}"
    spans = [s.value for s in name_spans(frame.format(name))]
    assert name in spans, spans


@settings(max_examples=40, deadline=None)
@given(
    left=st.sampled_from(["Access Dental", "Great Clips", "Bay Area Salon"]),
    right=st.sampled_from(["Santa Rosa", "San Jose", "Downtown"]),
)
def test_a_spaced_dash_joins_a_name(left: str, right: str) -> None:
    text = f"What about {left} - {right}. Located nearby."
    assert name_spans(text)[0].value == f"{left} - {right}"


@settings(max_examples=40, deadline=None)
@given(
    number=st.integers(10, 99999), street=st.sampled_from(["Clayton Road", "West 7th Street", "Polk Street"])
)
def test_a_house_number_opens_a_street(number: int, street: str) -> None:
    assert name_spans(f"the address is {number} {street} in Concord")[0].value == f"{number} {street}"


def test_numbers_and_articles_that_open_no_name() -> None:
    assert [s.value for s in name_spans("I have 3 Tickets")] == ["Tickets"]
    assert [s.value for s in name_spans("The Parc Hotel is fine")] == ["Parc Hotel"]
    assert [s.value for s in name_spans("book The Parc Hotel for me")] == ["The Parc Hotel"]
    assert [s.value for s in name_spans("try A J Dental Lab")] == ["A J Dental Lab"]


SONG = ParamSpec(name="song_name", type="string", required=True, description="Name of the song")


@settings(max_examples=40, deadline=None)
@given(
    title=st.sampled_from(["Hate me", "Pour it up", "Every Little Honky Tonk Bar", "Let it be"]),
    artist=st.sampled_from(["Eurielle", "rihanna", "George Strait"]),
)
def test_an_offered_work_is_named_up_to_by(countries: CountryNames, title: str, artist: str) -> None:
    messages = [
        Message("user", "Find me some songs"),
        Message(
            "assistant", f"I found 10 songs. What do you think about {title} by {artist} in album Arcadia?"
        ),
        Message("user", "Great, play it"),
    ]
    values = track(messages, [SONG], RuleExtractor(countries), language="en")
    assert values.get("song_name") == title


@settings(max_examples=60, deadline=None)
@given(
    noun=st.sampled_from(["Genre", "Cuisine", "Style", "Category"]),
    thing=st.sampled_from(["movie", "song", "food", "event", "book"]),
    value=st.sampled_from(["Drama", "Italian", "Jazz", "Thriller", "Mexican", "Rock"]),
    frame=st.sampled_from(["I like {v} {t}s.", "find me some {v} {t}", "any {v} {t} nearby?"]),
)
def test_the_word_before_the_thing_a_description_names(
    countries: CountryNames, noun: str, thing: str, value: str, frame: str
) -> None:
    """ "Genre of the movie": "I like Drama movies" names the genre, for any such description."""
    param = ParamSpec(name=noun.lower(), type="string", description=f"{noun} of the {thing}")
    values = RuleExtractor(countries).extract(frame.format(v=value, t=thing), [param], language="en")
    assert values == {noun.lower(): value}


def test_a_name_after_the_parameters_noun(countries: CountryNames) -> None:
    album = ParamSpec(name="album", type="string", description="Album the song belongs to")
    extractor = RuleExtractor(countries)
    text = "play me a song from the album Thank You Happy Birthday"
    assert extractor.extract(text, [album], language="en") == {"album": "Thank You Happy Birthday"}
    assert extractor.extract("the album is great", [album], language="en") == {}
    assert (
        extractor.extract(
            "I want good food", [ParamSpec(name="cuisine", description="Cuisine of food")], language="en"
        )
        == {}
    )


def test_one_way_counts_nothing(countries: CountryNames) -> None:
    seats = ParamSpec(
        name="passengers", type="integer", description="Number of passengers", enum=["1", "2", "3", "4"]
    )
    extractor = RuleExtractor(countries)
    assert extractor.extract("a one way economy ticket", [seats], language="en") == {}
    assert extractor.extract("one of those flights", [seats], language="en") == {}
    assert extractor.extract("two tickets, one way", [seats], language="en") == {"passengers": "2"}


RIDE = [
    ParamSpec(name="destination", type="string", required=True, description="Destination for taxi ride"),
    ParamSpec(name="number_of_seats", type="integer", description="Number of seats to reserve"),
]


@settings(max_examples=30, deadline=None)
@given(
    place=st.sampled_from(["Desert Botanical Garden", "American Writers Museum", "Harbourfront Centre"]),
    ask=st.sampled_from(
        ["I need a taxi to get there.", "Can you get me a cab there?", "Call me a ride there please"]
    ),
)
def test_there_is_the_place_the_conversation_last_named(
    countries: CountryNames, place: str, ask: str
) -> None:
    messages = [
        Message("user", "I want to see an attraction"),
        Message("assistant", f"How about {place}? It is a museum."),
        Message("user", "Sounds good."),
        Message("assistant", "Anything else?"),
        Message("user", ask),
    ]
    assert track(messages, RIDE, RuleExtractor(countries), language="en").get("destination") == place


def test_a_confirmed_destination_is_taken(countries: CountryNames) -> None:
    messages = [
        Message("user", "I need a cab"),
        Message("assistant", "Is a shared ride okay? You are going to 180 Hamilton Avenue, correct?"),
        Message("user", "Yeah that's fine."),
    ]
    assert (
        track(messages, RIDE, RuleExtractor(countries), language="en").get("destination")
        == "180 Hamilton Avenue"
    )
