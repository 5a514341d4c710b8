"""The shape of a question (services.answer_shape), read from the message by rules
in en/et/ru: yes/no, an exact count and from which end, an extreme, an aggregate, a
time-of-day window, a full list, filters by weekday, month, date, number and words.

Word classes, not phrases: superlatives and comparatives of the three languages,
number words, weekday and month names in their case forms (months and dates come
from the value extractor's date finder, so a month reads the same here and in the
request), clock hours with their connectors. Matched on folded text (lower case, no
diacritics: "kõige odavam" and "koige odavam" are one), by word beginnings so case
endings pass ("odavaimat", "самые дешёвые").

With a model configured, ShapeModule (DSPy) reads it instead, checked against the
same types; any failure falls back to these rules.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import date, datetime, timedelta, tzinfo
from itertools import pairwise
from typing import Protocol

from loop_svc.extraction.dates import find_dates, month_of, whole_year
from loop_svc.extraction.from_now import DAY_UNIT, find_stretches
from loop_svc.extraction.numbers import NUMBER_WORD, NUMBER_WORDS
from loop_svc.extraction.shifts import find_shift
from loop_svc.extraction.text import NOW_PATTERN
from loop_svc.extraction.windows import MIDNIGHT_WORDS, hour_ranges, hours_from
from loop_svc.schema import Concept, ParamSpec, date_pairs
from services.answer_shape import (
    Aggregation,
    AnswerShape,
    Comparison,
    DateRange,
    Function,
    Hours,
    Kind,
    Months,
    Op,
    Order,
    PeriodComparison,
    RowFilter,
    Selection,
    Weekdays,
)
from services.field_terms import fold
from services.language import Lang, russian_analyzer
from services.text import STOPWORDS


class ShapeReader(Protocol):
    def read(self, message: str, language: Lang) -> AnswerShape: ...


_N = rf"(\d{{1,3}}|{NUMBER_WORD})"

# Superlatives and their kin, folded. Each entry: (pattern, order).
_EXTREMES: list[tuple[str, Order]] = [
    (r"cheapest|lowest|least|minimum|smallest|fewest|best (?:time|hour|price)|"
     r"odavai?m\w*|odavaim\w*|koige (?:odav|madal|vaiks|vahem)\w*|madalai?m\w*|vaikseim\w*|vahim\w*|"
     r"сам\w* (?:дешев|низк|маленьк|мал)\w*|дешевле всего|меньше всего|минимальн\w*|наименьш\w*|"
     r"ниже всего|наиболее дешев\w*", Order.LOWEST),
    (r"most expensive|dearest|priciest|highest|maximum|largest|biggest|peak|worst|the most|most|"
     r"kallei?m\w*|koige (?:kalli|korge|suur|rohke|enam)\w*|korgei?m\w*|suurim\w*|enim\w*|"
     r"сам\w* (?:дорог|высок|больш)\w*|дороже всего|больше всего|максимальн\w*|наибольш\w*|"
     r"выше всего|наиболее дорог\w*", Order.HIGHEST),
    (r"longest|koige pikem\w*|pikim\w*|сам\w* (?:длинн|продолжительн|долг)\w*|дольше всего", Order.LONGEST),
    (r"shortest|koige luhem\w*|luhim\w*|сам\w* коротк\w*|короче всего", Order.SHORTEST),
]  # fmt: skip
_EXTREME = [(re.compile(rf"(?<!\w)(?:{p})(?!\w)"), order) for p, order in _EXTREMES]
# Cues whose next word says a period, not a row: "next week", "last Sunday", "viimasel nädalal".
_PERIOD_WORDS = (
    r"(?:year|week|weekend|month|day|night|evening|morning|afternoon|monday|tuesday|wednesday|thursday|friday|saturday|sunday|"
    r"aasta\w*|nadal\w*|kuu\w*|paev\w*|esmasp\w*|teisip\w*|kolmap\w*|neljap\w*|reede\w*|laup\w*|puhap\w*|"
    r"год\w*|недел\w*|месяц\w*|выходн\w*|понедельник\w*|вторник\w*|сред\w*|четверг\w*|пятниц\w*|"
    r"суббот\w*|воскресень\w*|дн\w*)"
)
_PERIOD_WORD = re.compile(
    r"(?:years?|weeks?|months?|days?|today|tomorrow|yesterday|aasta\w*|nadal\w*|kuu\w*|paev\w*|tana\w*|"
    r"homme\w*|eile\w*|год\w*|году|недел\w*|месяц\w*|день|дня|дней|сегодня|завтра|вчера)"
)
_NEXT = re.compile(
    rf"(?<!\w)(?:next|upcoming|coming|soonest|jargmi\w*|eelseisv\w*|lahim\w*|следующ\w*|ближайш\w*)"
    rf"(?!\s+{_PERIOD_WORDS})(?!\w)"
)
_LATEST = re.compile(
    rf"(?<!\w)(?:last|latest|most recent|newest|previous|viima[ns]\w*|viimati|uusim\w*|eelmi\w*|moodunud|"
    # (the adjective "прошлый", never the verb "прошли": "какие из них прошли")
    rf"прошл(?:ый|ая|ое|ые|ого|ой|ую|ом|ых|ым|ыми)|предыдущ\w*|"
    rf"koige (?:varskem|uuem|viimase?)\w*|varskeim\w*|"
    rf"последн\w*|сам\w* (?:свеж|нов|последн)\w*|новейш\w*)(?!\s+{_PERIOD_WORDS})(?!\w)"
)
_FIRST = re.compile(r"(?<!\w)(?:first|esimes\w*|esimest|перв\w*)(?!\w)")
_EARLIEST = re.compile(r"(?<!\w)(?:earliest|koige varasem\w*|varaseim\w*|самы\w* ранн\w*)(?!\w)")
_AFTER_THAT = re.compile(
    r"(?:one |the one )?after (?:that|it)|(?:sellele|selle) jargmi\w*|"
    r"после (?:него|нее|этого)|следующий после"
)
# A cue that is singular itself: a Russian one by its ending ("последнее голосование",
# "ближайший": the noun after it is singular too, whatever its ending — "голосование" ends
# like a plural), an adverb ("viimati hääletas": the word after it is a verb, no noun).
_SINGULAR_CUE = re.compile(r"[\u0400-\u04ff](?:ий|ый|ой|ая|яя|ее|ое|ую|юю|его|ого)$|^viimati$")
# Plural forms of the cue or the word after it: "the next 3", "järgmised", "последние".
_PLURAL_CUE = re.compile(
    # (with the partitive plurals: "näita viimaseid hääletusi", "järgmisi pühi")
    r"(?<!\w)(?:jargmised|jargmisi|viimased|viimaseid|viimaste\w*|esimesed|esimesi|eelseisvad|eelseisvaid|"
    r"(?:следующ|ближайш|последн|перв)(?:ие|их|ими)(?!\w))"
)

# "i mean akadeemia tee 3" is a correction, no mean.
_AVERAGE = re.compile(r"(?<!\w)(?:average|avg|(?<!\bi )(?<!\byou )mean|keskmi\w*|средн\w*)(?!\w)")
# What an amount is made of: its parts, never their sum ("из чего складывается сумма",
# "millest maks koosneb", "what does the total consist of", "break it down").
_BREAKDOWN = re.compile(
    r"(?<!\w)(?:consists? of|made up of|composed of|break\w* (?:it |this |that )?down|breakdown|"
    r"koosneb|koosnevad|kujuneb|kujunevad|millest (?:see|maks|summa) (?:koosneb|tuleb)|osadeks|"
    r"складывает\w*|состоит|состоят|из чего|по частям|разбивк\w*)(?!\w)"
)
_SUM = re.compile(r"(?<!\w)(?:total|sum|summa|kokku|итого|сумм\w*|в сумме)(?!\w)")
# "Во сколько" is "at what time", not "how many" ("а самое свежее когда было и во сколько?").
_HOW_MANY = re.compile(
    r"(?<!\w)(?:how many|number of|mitu|mitmel|mitme|"
    r"(?<!во )(?<!в )сколько(?!(?:\s+\w+){0,3}\s+(?:стои\w*|стоил\w*|"
    r"заплат\w*|плат\w*|налог\w*|длит\w*|длят\w*|цен\w*))"
    # "а сколько будет?": how much it comes to, no count
    r"(?!\s+(?:это\s+)?(?:будет|выйдет|получится)\s*(?:[?.!]|$)))(?!\w)"
    # "how many cents per kWh", "mitu senti", "сколько центов": a price in a unit, no count.
    r"(?!\s+(?:cents?|euros?|eur|senti\w*|sent|eurot?|центов|цента|евро|копеек|копейки)(?!\w))"
)
_DAYS_COUNTED = re.compile(rf"\s+{DAY_UNIT}(?!\w)")
# "how many days until / left", "через сколько дней": a distance in days, no length.
_UNTIL_THEN = re.compile(
    r"(?<!\w)(?:until|till|left|before|away|from now|jaanud|parast|parastini|kuni|"
    r"через|до|осталось|оста\w*)(?!\w)"
)
_PALJU = re.compile(r"(?<!\w)(?:kui )?palju(?!\s+(?:maks\w*|kulu\w*|hind\w*|on hind))(?!\w)")
# Words of paying and of money: what a total of them adds is an amount.
_AMOUNT = re.compile(
    r"(?<!\w)(?:pay\w*|paid|cost\w*|tax\w*|fee\w*|euros?|eur|maks\w*|tasu\w*|kulu\w*|eurot?|"
    r"налог\w*|плат\w*|заплат\w*|стои\w*|стоил\w*|евро|€)(?!\w)|€"
)
_ALTOGETHER = re.compile(r"(?<!\w)(?:altogether|in total|kokku|всего)(?!\w)")
_RANGE = re.compile(
    r"(?<!\w)(?:range|fluctuat\w*|vahemik\w*|koikuv\w*|koiguv\w*|диапазон\w*|колебл\w*|разброс\w*)(?!\w)"
)
_DURATION = re.compile(
    r"(?<!\w)(?:how long|kui kaua|kui pikk|kaua kest\w*|kestab|kestavad|kestus\w*|как долго|дл[ия]т\w*|"
    r"продолжительност\w*|"
    # "how many days is the break", "mitu päeva on jõuluvaheaeg", "скока дней получается"
    r"how many days (?:is|are|does|do|will|did)|mitu paeva on|"
    r"(?:сколько|скок|скока) (?:дней|дня|суток) (?:получа\w*|буд\w*|идут|ид[её]т))(?!\w)"
)
# The days still to wait for a row ("how many days till the spring break", "how long
# until Christmas", "mitu päeva veel kevadvaheajani", "kui kaua on jõuludeni", "сколько
# дней осталось до праздника", "скок дней до каникул"): a count of days and a word of
# waiting (until, left, veel, jäänud, an Estonian terminative "-ni", осталось, до).
_DAYS_UNTIL = re.compile(
    r"(?<!\w)(?:"
    r"(?:how many|number of)\s+(?:more\s+)?days?\b"
    r"(?=[^.?!]{0,40}?\b(?:(?:un)?till?|left|to go|remain\w*|before|away)\b)|"
    r"how long\s+(?:is it\s+|do (?:we|i|they) have\s+)?(?:un)?till?\b|"
    r"(?:mitu|mitme)\s+paeva\w*(?=[^.?!]{0,40}?(?:\bveel\b|\bjaa\w*|\bkuni\b|\bootama\w*|\w{3,}ni\b))|"
    r"kui\s+kaua\s+(?:on\s+)?veel\b|"
    r"(?:сколько|скок|скока|скольк\w*)\s+(?:(?:ещ[её]|осталось|остается|остаётся)\s+)?(?:дней|дня|суток)"
    r"(?=[^.?!]{0,40}?(?:\bосталось\b|\bостается\b|\bостаётся\b|\bдо\b|\bждать\b))|"
    r"через\s+сколько\s+(?:дней|суток)"
    r")",
)
_FULL = re.compile(
    r"(?<!\w)(?:every|each|all|complete|full list|whole list|entire list|not just|every single|hourly|"
    r"by the hour|per hour|koik\w*|iga tunni|tunni kaupa|kogu nimekiri|taielik\w*|terve nimekiri|"
    r"все|всех|каждый|полный список|по всем|по часам|целиком)(?!\w)"
)
_YES_NO_EN = re.compile(
    # A clause after a dash opens a question too ("going to berlin for easter - are …").
    r"(?:^|[,.;:!?]\s*|\s[-\u2013\u2014]+\s*|\b(?:hey|hi|so|and|but|ok|okay|also|then)\s+)"
    r"(?:is|are|was|were|do|does|did|can|could|will|would|has|have|had|should|shall|isn't|aren't|"
    r"wasn't|doesn't|didn't|won't)\b"
)
_YES_NO_TAIL = re.compile(
    r"\bor not\b|\b, right\b|\bisn't it\b|\bvoi mitte\b|\bили нет\b|\bили уже\b|"
    r"^\W*(?:(?:are|is) there )?any\b.*\?\s*$"
)
# A statement closed by a tag that asks to confirm it: "…index 50089, правильно?",
# "…algab aprillis, eks?", "…on the 1st, correct?", "…начинаются да?".
_CONFIRM_TAG = re.compile(
    r"(?:^|[\s,])(?:right|correct|true|yes|is that (?:right|correct|so)|правильно|верно|да|так ведь|"
    r"не так ли|ведь так|eks|eksole|onju|ju|oige|jah|kas pole)\s*\?\s*$"
)
_SENTENCE_END = re.compile(r"(?<!\d)[.!?]\s")
_KAS = re.compile(r"(?<!\w)kas(?!\w)")
_LI = re.compile(r"(?<!\w)ли(?!\w)")
_RU_WH = re.compile(
    r"(?<!\w)(?:что|какой|какая|какое|какие|каких|каким|когда|где|куда|откуда|сколько|кто|почему|зачем|как|"
    r"котор\w*|чем|чей|чья|покажи\w*|дай\w*|назови\w*|скажи\w*|подскаж\w*)(?!\w)"
    # "что-нибудь", "кто-то", "какой-либо": an indefinite pronoun asks nothing
    r"(?!-(?:нибудь|то|либо))"
)
_EN_WH = re.compile(r"(?<!\w)(?:what|which|when|where|who|whom|how|why|show|list|give|tell)(?!\w)")
_RU_PREDICATE = re.compile(
    r"(?<!\w)(?:уже|еще|тоже|также|правда|можно|будет|будут|есть|является|являются|был|была|было|были|"
    r"готов\w*|неужели|разве|надо|нужно|должен|должна|должны|обязан\w*)(?!\w)"
    # "Akadeemia tee 3 — это Мустамяэ?": a statement of what something is, asked to confirm
    r"|(?<!\w)это\s+[^\W\d_]+(?:\s+[^\W\d_]+)?\s*\?\s*$"
    # "что-то отклонили?", "кто-нибудь голосовал против?": an indefinite pronoun asks whether any
    r"|(?<!\w)\w+-(?:нибудь|то|либо)(?!\w)"
)
# A request put as a question of ability ("can u list all …", "could you show me …", "kas sa
# saaksid loetleda …", "можешь показать …"): what is asked is done, not answered yes or no.
_POLITE_REQUEST = re.compile(
    r"(?:^|[,.;:!?]\s*)\W*(?:(?:can|could|would|will)\s+(?:you|u|ya)\s+(?:please\s+|pls\s+|plz\s+)?"
    r"(?:list|show|tell|give|find|send|check|calculate|look\s+up|get|name|display|print|pull)"
    r"|kas\s+(?:sa|te)\s+(?:saad|saate|saaksid|saaksite|voiksid|voiksite|oskad|oskate)\s+(?:mulle\s+)?"
    r"(?:naidata|oelda|loetleda|nimetada|leida|anda|otsida|arvutada)"
    r"|(?:можешь|можете|мог\w*\s+бы|не\s+могли\s+бы\s+вы)\s+(?:мне\s+)?(?:пожалуйста\s+)?"
    r"(?:показать|перечислить|сказать|назвать|найти|дать|выгрузить|посчитать|подсказать))(?!\w)"
    # "can you tell me if 24 December is a holiday": the request is for a yes or no.
    r"(?!\s+(?:me\s+|mulle\s+|мне\s+)?(?:if|whether|kas|ли)(?!\w))"
)
_ELLIPSIS_START = re.compile(r"^\W*(?:а|и|and|aga|ja|a)(?!\w)")
# A state asked of a value with its verb left out ("EE7788990 ready?", "my application
# done?", "bill 612 passed?"): a yes/no question.
_STATE_ASKED = re.compile(
    r"(?<!\w)(?:ready|done|finished|valid|approved|accepted|rejected|processed|issued|available|passed|"
    r"open|closed|true)\s*(?:yet|already)?\s*\?\s*$"
)
# A statement asked with its mark: a copula after the subject, no question word ("new
# year's eve is a day off there too?", "24. detsember on soomes vaba päev?").
_ET_WH = re.compile(
    r"(?<!\w)(?:mis|mida|millal|milline|millised|milliseid|millisel|mitu|mitmes|kus|kuhu|kust|kes|kuidas|"
    r"miks|kui\s+kaua|kui\s+palju|kui\s+pikk|naita|nimeta|utle)(?!\w)"
)
_COPULA_INSIDE = re.compile(r"^\W*\w\S*(?:\s+\S+)*?\s+(?:is|are|was|were|isn't|aren't|on|oli)(?!\w)")

_LESS = (
    r"under|below|less than|fewer than|cheaper than|lower than|at most|no more than|not more than|"
    r"alla|vahem kui|vaiksem kui|odavam kui|madalam kui|mitte rohkem kui|"
    r"меньше|менее|ниже|дешевле|не больше|не более"
)
_MORE = (
    r"over|above|more than|greater than|higher than|dearer than|more expensive than|at least|exceeding|"
    r"exceeds?|ule|rohkem kui|suurem kui|kallim kui|korgem kui|vahemalt|"
    r"больше|более|выше|дороже|свыше|не меньше|не менее"
)
_NUMBER = r"(\d+(?:[.,]\d+)?)"
_COMPARE = re.compile(rf"(?<!\w)(?:({_LESS})|({_MORE}))\s+(?:than\s+|kui\s+|чем\s+)?{_NUMBER}(?!\s*[.:]\d)")
_COMPARE_AFTER = re.compile(rf"(?<![\w.,]){_NUMBER}\s*(?:\w+\s+)?(?:(alla)|(ule))(?!\w)")

_WEEKDAYS: list[tuple[int, str]] = [
    (1, r"monday|mondays|mon|esmasp\w*|понедельник\w*"),
    (2, r"tuesday|tuesdays|tue|teisip\w*|вторник\w*"),
    (3, r"wednesday|wednesdays|wed|kolmap\w*|сред[аыуе]|средам"),
    (4, r"thursday|thursdays|thu|neljap\w*|четверг\w*"),
    (5, r"friday|fridays|fri|reede\w*|пятниц\w*"),
    (6, r"saturday|saturdays|sat|laupaev\w*|laupa\w*|суббот\w*"),
    (7, r"sunday|sundays|sun|puhapaev\w*|воскресень\w*"),
]
_WEEKDAY = [(d, re.compile(rf"(?<!\w)(?:{p})(?!\w)")) for d, p in _WEEKDAYS]
_WEEKEND = re.compile(r"(?<!\w)(?:weekends?|nadalavahetus\w*|выходные|выходных|выходными)(?!\s+дн)(?!\w)")
_WORKDAYS = re.compile(r"(?<!\w)(?:weekdays|workdays?|working days|toopaev\w*|будн\w*|рабоч\w* дн\w*)(?!\w)")
_WEEKDAY_RANGE_LINK = re.compile(
    r"^\s*(?:to|until|till|through|-|–|kuni|по|до)\s*$|^\w*\s*(?:to|kuni|по)\s*$"
)
_DATED_WEEKDAY = re.compile(
    r"(?<!\w)(?:last|next|this|coming|past|eelmis\w*|jargmis\w*|sel|sellel|tuleval|прошл\w*|следующ\w*|"
    r"эт\w+|ближайш\w*)\s+$"
)
_NEGATED = re.compile(r"(?<!\w)(?:not|except|excluding|besides|other than|mitte|pole|ei ole|v\.a|"
                      r"valja arvatud|"
                      r"не|кроме|если не считать)\s+(?:\w+\s+){0,2}$")  # fmt: skip

# Parts of the day (local hours), and clock readings.
_PARTS_OF_DAY: list[tuple[str, int, int]] = [
    (r"tonight|tana ohtul|täna öösel|сегодня вечером|сегодня ночью", 18, 24),
    (r"morning|hommiku\w*|hommikul|утр\w*|утром", 6, 12),
    (r"afternoon|parastlouna\w*|lounal|днем|днём|после обеда", 12, 18),
    (r"evening|ohtu\w*|ohtl|вечер\w*", 18, 23),
    (r"night|oo(?:sel|l)?|ooaeg\w*|ночь\w*|ночью", 0, 6),
]
_PART_OF_DAY = [(re.compile(rf"(?<!\w)(?:{p})(?!\w)"), a, b) for p, a, b in _PARTS_OF_DAY]
_H = r"([01]?\d|2[0-4])(?::([0-5]\d))?\s*(am|pm|a\.m\.|p\.m\.)?"
# "only 8 to 12", "ainult 8-12", "только с 8 до 12": a range narrowing the rows just shown
# reads as hours of the day even with no hour word (a range of days names its month).
_ONLY = re.compile(r"(?<!\w)(?:only|just|ainult|vaid|только|лишь)(?!\w)")
_UNTIL_MIDNIGHT = re.compile(rf"(?<!\w)(?:until midnight|till midnight|до полуночи|{MIDNIGHT_WORDS})(?!\w)")
# A comparative with no number after it compares two things named ("cheaper tomorrow
# than today"); with a number it is a filter (_COMPARE).
_COMPARATIVE = re.compile(
    r"(?<!\w)(?:(?P<lower>cheaper|less expensive|lower|odavam\w*|madalam\w*|дешевле|ниже|меньше)|"
    r"(?P<higher>dearer|more expensive|pricier|higher|costlier|kallim\w*|korgem\w*|дороже|выше|больше))"
    r"(?!\s*(?:than\s+|kui\s+|чем\s+)?\d)(?!\w)"
)
_THAN = re.compile(r"(?<!\w)(?:than|compared (?:to|with)|kui|vorreldes|чем|по сравнению с)(?!\w)")
# Parts of the day after noon: a clock hour below 12 said with one is in the afternoon.
_LATER_PART = re.compile(
    r"(?<!\w)(?:evening|tonight|afternoon|ohtu\w*|ohtl|parastlouna\w*|вечер\w*|после обеда)(?!\w)"
)
_AT_HOUR = re.compile(rf"(?<!\w)(?:at|kell|kella|в)\s+{_H}(?![\d.:/])(?!\s*(?:%|€|eur|евро|euro))")
_NOW = re.compile(rf"(?<!\w)(?:{NOW_PATTERN})(?!\w)")
# "now only the final votes", "ok now the cheapest one": a "now" that opens the message
# before more words moves the talk on; it names no hour.
_NOW_OPENING = re.compile(r"^\W*(?:(?:and|ok(?:ay)?|so|well)\W+)?now\W+(?=\w)")
_HOUR_CONTEXT = re.compile(
    r"(?<!\w)(?:hours?|o'clock|am|pm|tunn?\w*|kell\w*|час\w*|morning|evening|night|tonight|hommik\w*|ohtu\w*|"
    r"oo\w*|утр\w*|вечер\w*|ноч\w*|today|tomorrow|tana\w*|homme\w*|сегодня|завтра|yesterday|eile\w*|вчера|"
    r"price\w*|hind\w*|цен\w*|electricity|elekt\w*|электр\w*|свет|"
    r"late|later|early|earlier|hilja|hiljem|vara|varem|поздн\w*|позже|попозже|рано|пораньше)(?!\w)"
)

# Words that say what kind of answer is wanted, not what it is about.
_CUE_WORDS = frozenset(
    fold(w)
    for w in """cheapest lowest least minimum smallest fewest best time most expensive dearest priciest
    highest
    maximum largest biggest peak worst longest shortest next upcoming coming soonest last latest recent newest
    first earliest average avg mean total sum altogether how many number long every each all complete full
    list whole entire hourly please pls show give tell me yes not only just also still already yet exactly
    odavaim odavam kõige madalaim väikseim vähim kallim kalleim kõrgeim suurim enim pikem pikim lühem lühim
    järgmine järgmised viimane viimased uusim värskem esimene esimesed keskmine keskmiselt kokku mitu palju
    kõik iga terve kogu täielik näita anna ütle palun ainult veel juba kaua pikk
    самый самая самое самые дешевле дороже дешевый дорогой низкий высокий минимальный максимальный
    наименьший наибольший ближайший следующий последний первые первый средний средняя итого всего
    сколько все всех каждый полный покажи дай назови скажи подскажите пожалуйста только ещё уже
    hour hours tund tunnid час часы
    weekday nädalapäev nädalapäeval start starts begin begins end ends algab algavad lõpeb lõppeb
    lõpevad начинается начинаются заканчивается заканчиваются день недели""".split()
)
# A question for the weekday of what was shown ("what weekday is it", "mis nädalapäev see
# on", "mis nädalapäeval see algab", "какой это день недели", "в какой день недели").
WEEKDAY_ASKED = re.compile(
    r"(?<!\w)(?:(?:what|which)\s+(?:day\s+of\s+(?:the\s+)?week|weekday)|week\s*day\s+(?:is|was)|"
    r"nadalapaev\w*|день\s+недели|дн[яе]\s+недели)(?!\w)"
)


def _both_extremes(text: str) -> Aggregation | None:
    """The lowest and the highest of one number asked together: its range, measured by the
    words after the later cue ("cheapest and dearest hour", "most and fewest votes against")."""
    found: dict[Order, re.Match[str]] = {}
    for pattern, order in _EXTREME:
        if order not in (Order.LOWEST, Order.HIGHEST):
            continue
        for m in pattern.finditer(text):
            if m.group(0) in ("most", "the most") and not re.match(r"\s+\w+", text[m.end() :]):
                continue
            found.setdefault(order, m)
            break
    if len(found) < 2:
        return None
    last = max(found.values(), key=lambda m: m.start())
    terms = tuple(w.strip("«»\"'.,?!") for w in text[last.end() : last.end() + 40].split()[:3])
    return Aggregation(Function.RANGE, tuple(t for t in terms if t and not t[0].isdigit()))


def _int(word: str) -> int | None:
    if word.isdigit():
        value = int(word)
        return value if 0 < value <= 100 else None
    return NUMBER_WORDS.get(word)


def _count_near(text: str, start: int, end: int) -> int | None:
    """A count written right before or after a cue: "3 cheapest", "the last 3", "kaks esimest"."""
    # (not the end of a longer number: "lätis 2027 viimane riigipüha" counts no 27)
    before = re.search(rf"(?<![\w.,:/-]){_N}\s+(?:\w+\s+)?$", text[:start])
    after = re.match(
        rf"\s+(?:\w+\s+)?{_N}(?!\s*(?:[.:/-]\d|%|€|eur|euro|евро|\w*\s*(?:aasta|year|год)))", text[end:]
    )
    for found in (after, before):
        if found is not None:
            value = _int(found.group(1))
            if value is not None and not re.match(r"\s*(?:\d{3}|[.:])", text[end + found.end() :]):
                return value
    return None


# "which 2 of the latest 10 had the most against", "the 3 votes with the fewest against",
# "millised 2 hääletust olid kõige tasavägisemad", "какие 3 голосования …": the count after
# the question word or article that opens the noun the extreme picks from.
_ASKED_COUNT = re.compile(
    rf"(?<!\w)(?:which|what|the|millised|milliseid|mis|missugused|какие|каких|какой)\s+{_N}"
    rf"(?=\s+[^\W\d_])(?!\s*(?:%|€|eur|euro|евро|am\b|pm\b|\w*\s*(?:aasta|year|год)))"
)


# A count right after a word that asks for rows, before the rows' noun: "list 4 holidays",
# "näita kolme hääletust", "какие две каникулы".
_LISTED_COUNT = re.compile(
    rf"(?<!\w)(?:list|show|give|name|which|what|the|naita|anna|nimeta|loetle|millised|milliseid|"
    rf"missugused|покажи|назови|перечисли|дай|какие|каких)\s+(?:me\s+|mulle\s+|мне\s+)?{_N}"
    rf"(?=\s+[^\W\d_])(?!\s*(?:%|€|eur|euro|евро|am\b|pm\b|\w*\s*(?:aasta|year|год)))"
)


def _count_asked(before: str) -> int | None:
    m = _ASKED_COUNT.search(before)
    if m is None or _month_follows(before[m.end() :]):
        return None  # "what 24 december …": a day, no count
    return _int(m.group(1))


def _hour(h: str, minutes: str | None, meridiem: str | None) -> int | None:
    value = int(h)
    if meridiem:
        if meridiem.startswith("p") and value < 12:
            value += 12
        if meridiem.startswith("a") and value == 12:
            value = 0
    return value if 0 <= value <= 24 else None


class RuleShapeReader:
    """Deterministic shapes. `now` is the citizen's local wall time ("right now")."""

    def __init__(self, today: Callable[[], date], now: Callable[[], datetime] | None = None) -> None:
        self._today = today
        self._now = now

    def read(self, message: str, language: Lang) -> AnswerShape:
        raw = message.strip()
        text = fold(raw)
        filters: list[RowFilter] = []
        used: list[tuple[int, int]] = []
        hours = self._hours(text, used)
        if hours is not None:
            filters.append(RowFilter(hours))
        days = self._days(raw, text, language, used)
        if hours is not None and hours.end < hours.start:
            # "tonight between 22 and 6": the window's hours after midnight are the next day's.
            days = [_through_next_day(f) for f in days]
        filters.extend(days)
        comparisons = self._comparisons(text, used)
        filters.extend(comparisons)
        selection = self._selection(text, used)
        aggregation = self._aggregation(text)
        if aggregation is not None and aggregation.function is Function.DAYS_UNTIL and selection is None:
            selection = Selection(Order.NEXT, 1)  # the row waited for is the next one
        if aggregation is None and selection is not None and selection.count <= 1:
            both = _both_extremes(text)
            if both is not None:
                # "the cheapest and the dearest hour", "kõige odavam ja kalleim": both ends of
                # the same number, each with its time — its range.
                selection, aggregation = None, both
        full = bool(_FULL.search(text))
        one_day = self._day_first(raw, language)
        yes_no = self._yes_no(text, bool(comparisons), one_day)
        kind = Kind.LIST
        if yes_no:
            kind = Kind.YES_NO
        elif aggregation is not None:
            kind = Kind.AGGREGATE
        elif selection is not None:
            kind = Kind.COUNT if selection.count > 1 else Kind.EXTREME
        elif full:
            kind = Kind.FULL_LIST
        if full and selection is not None and selection.order is Order.FIRST and selection.count == 0:
            selection = None
        # "…были праздники? коллега из Вильнюса не отвечал": what follows the question
        # only says why; its words pick no rows.
        mark = text.rfind("?")
        asked_part = (
            text[: mark + 1]
            if 0 <= mark < len(text.rstrip()) - 1 and not _EN_WH.search(text[mark:])
            else text
        )
        terms = self._terms(asked_part, used)
        periods = None if comparisons else self._period_comparison(raw, text, language)
        if periods is not None:
            kind, selection = Kind.YES_NO, None
        return AnswerShape(
            kind=kind,
            filters=tuple(filters),
            selection=selection,
            aggregation=aggregation,
            terms=terms,
            question=raw[:500],
            period_comparison=periods,
        )

    def _period_comparison(self, raw: str, text: str, language: Lang) -> PeriodComparison | None:
        """Two periods compared by a comparative with no number: "is power cheaper tomorrow
        than today", "kas homme on odavam kui täna", "сегодня дороже, чем вчера?". The
        period after "than" is the reference, the other one the subject."""
        found = _COMPARATIVE.search(text)
        if found is None or len(text) != len(raw):
            return None
        op = Op.LT if found.group("lower") else Op.GT
        than = _THAN.search(text)
        if than is None:
            return None
        mentions = [m for m in find_dates(raw, language, self._today()).dates if not whole_year(m)]
        if len(mentions) != 2:
            return None
        after = [m for m in mentions if m.start >= than.end()]
        before = [m for m in mentions if m.end <= than.start()]
        if len(after) != 1 or len(before) != 1:
            return None
        subject, reference = before[0], after[0]
        return PeriodComparison(
            DateRange(subject.value, subject.last or subject.value),
            DateRange(reference.value, reference.last or reference.value),
            op,
        )

    # Pieces ----------------------------------------------------------------------------------

    def _hours(self, text: str, used: list[tuple[int, int]]) -> Hours | None:
        # Hour ranges are read where the request's window is (extraction.windows), so the
        # rows fetched and the rows shown agree ("kella 17st 20ni", "5 to 8pm").
        context = bool(_HOUR_CONTEXT.search(text) or _ONLY.search(text))
        for window in hour_ranges(text, clock_context=context):
            if _month_follows(text[window.end :]) or re.match(r"\s*[./]\d", text[window.end :]):
                continue  # "1-7 dec", "20–22 detsembril", "24.12": days, not hours
            used.append((window.start, window.end))
            return Hours(window.opens.hour, window.closes.hour + 1)
        # "after 6pm", "alates kella 18", "kella 19st südaööni": read as the request reads it.
        after = hours_from(text)
        if after is not None and _HOUR_CONTEXT.search(text) and not _day_span_follows(text[after.end :]):
            used.append((after.start, after.end))
            return Hours(after.opens.hour, 24)
        at = _AT_HOUR.search(text)
        if at is not None and _HOUR_CONTEXT.search(text) and not _month_follows(text[at.end() :]):
            hour = _hour(at.group(1), at.group(2), at.group(3))
            if hour is not None and hour < 12 and at.group(3) is None and _LATER_PART.search(text):
                hour += 12  # "в 9 вечером", "kell 9 õhtul", "at 9 in the evening": 21:00
            if hour is not None and hour < 24:
                used.append(at.span())
                # "kella 22st keskööni", "с 22 до полуночи": from that hour until midnight
                return Hours(hour, 24 if _UNTIL_MIDNIGHT.search(text) else hour + 1)
        shift = find_shift(text)
        if shift is not None and shift.whole_day:
            used.append((shift.start, shift.end))
            return Hours(0, 24)  # "a keskmine terve päeva kohta", "а средняя за тот день"
        if self._now is not None:
            now = self._now()
            for stretch in find_stretches(text, now.date(), now.hour):
                used.append((stretch.span_start, stretch.span_end))
                if stretch.unit == "hour" and stretch.end - stretch.start < timedelta(hours=24):
                    # "the next 3 hours", "in an hour", "the rest of today": those hours of the
                    # day (the request asks for no more; one past midnight wraps).
                    return Hours(stretch.start.hour, stretch.end.hour or 24)
        if _NOW.search(_NOW_OPENING.sub("", text)) and self._now is not None:
            hour = self._now().hour
            return Hours(hour, hour + 1)
        for pattern, start, end in _PART_OF_DAY:
            found = pattern.search(text)
            if found is not None:
                used.append(found.span())
                if _UNTIL_MIDNIGHT.search(text):
                    end = 24
                return Hours(start, end)
        return None

    def _days(self, raw: str, text: str, language: Lang, used: list[tuple[int, int]]) -> list[RowFilter]:
        out: list[RowFilter] = []
        days: list[int] = []
        spans: list[tuple[int, int, int]] = []
        for day, pattern in _WEEKDAY:
            for m in pattern.finditer(text):
                if _DATED_WEEKDAY.search(text[: m.start()]):
                    continue  # "last Sunday": a date, read below
                spans.append((m.start(), m.end(), day))
        spans.sort()
        for (_, e1, d1), (s2, _, d2) in pairwise(spans):
            if _WEEKDAY_RANGE_LINK.match(text[e1:s2]) or re.match(
                r"^\w*\s*(?:kuni|по|to|-)\s*$", text[e1:s2]
            ):
                span_days = [((d1 - 1 + k) % 7) + 1 for k in range((d2 - d1) % 7 + 1)]
                days.extend(span_days)
        negate = False
        if not days:
            # "not Thursday but Friday", "monday not friday": the days said without a
            # "not" are the ones meant; all of them negated ("not on Mondays") negate the filter.
            said_not = [
                bool(_NEGATED.search(text[prev:s]))
                for prev, (s, _, _) in zip([0, *(e for _, e, _ in spans)], spans, strict=False)
            ]
            meant = [d for (_, _, d), negated in zip(spans, said_not, strict=True) if not negated]
            days = meant or [d for _, _, d in spans]
            negate = bool(spans) and not meant
        elif spans:
            negate = bool(_NEGATED.search(text[: spans[0][0]]))
        if spans:
            used.extend((s, e) for s, e, _ in spans)
        weekend = _WEEKEND.search(text)
        weekend_days: tuple[int, int] | None = None
        if weekend is not None and not _DATED_WEEKDAY.search(text[: weekend.start()]):
            weekend_days = weekend.span()
            days.extend([6, 7])
            negate = negate or bool(_NEGATED.search(text[: weekend.start()]))
            used.append(weekend.span())
        workdays = _WORKDAYS.search(text)
        if workdays is not None:
            days.extend([1, 2, 3, 4, 5])
            used.append(workdays.span())
        unique = tuple(sorted(set(days)))
        if unique and len(unique) < 7:
            out.append(RowFilter(Weekdays(unique), negate))
        findings = find_dates(raw, language, self._today())
        used.extend((y.start, y.end) for y in findings.years)  # a year is the request's value
        months: list[tuple[int, int]] = []
        year_months: list[tuple[int, int, int]] = []
        for mention in findings.dates:
            if weekend_days is not None and mention.start < weekend_days[1] and weekend_days[0] < mention.end:
                continue  # an undated weekend is the Saturday-and-Sunday filter above, not a date
            piece = fold(raw[mention.start : mention.end])
            if whole_year(mention):
                # "next year", "järgmisel aastal": like a written year, the request's value.
                used.append((mention.start, mention.end))
                continue
            if any(p.search(piece) for _, p in _WEEKDAY) and not re.search(r"\d", piece):
                if not _DATED_WEEKDAY.search(text[: mention.start]) and not _DATED_WEEKDAY.search(
                    piece + " "
                ):
                    continue  # a bare weekday is the filter above, not a date
            used.append((mention.start, mention.end))
            last = mention.last or mention.value
            whole_month = (
                mention.last is not None
                and mention.value.day == 1
                and (last.month != (last + timedelta(days=1)).month)
                and mention.value.month == last.month
            )
            if whole_month and not re.search(r"\b(?:19|20)\d\d\b", piece):
                months.append((mention.start, mention.value.month))
                continue
            if whole_month:
                year_months.append((mention.start, mention.value.month, mention.value.year))
            alone = len(findings.dates) == 1  # two dates make one range below
            if alone and mention.last is None and mention.connector == "end":
                # "selle aasta lõpuni", "until Friday", "до конца года": the rows up to that day
                out.append(RowFilter(DateRange(None, mention.value)))
                continue
            if alone and mention.last is None and mention.connector == "start":
                # "from Monday on", "alates 1. märtsist": the rows from that day
                out.append(RowFilter(DateRange(mention.value, None)))
                continue
            out.append(RowFilter(DateRange(mention.value, last)))
        for m in re.finditer(r"[^\W\d_]{3,}", text):
            if any(a <= m.start() < b for a, b in used):
                continue
            # The word as written: the month names are matched with their diacritics.
            written = raw[m.start() : m.end()] if len(raw) == len(text) else m.group(0)
            month = _month_word(written.lower(), text, m.start())
            if month is not None:
                months.append((m.start(), month))
                used.append(m.span())
        out.extend(self._paired(out))
        ahead = _STILL_AHEAD.search(text)
        if ahead is not None and not any(isinstance(f.condition, DateRange) for f in out):
            # "how many are still to come", "mis on veel ees", "какие ещё впереди": the rows
            # from today on, of the period the request asked for.
            used.append(ahead.span())
            out.append(RowFilter(DateRange(self._today(), None)))
        out = _one_date_range(out, text)
        spanned = _month_range_with_year(sorted(months), year_months, text)
        if spanned is not None:
            # "с января по март 2027": the first month takes the year of the second.
            out = [f for f in out if not isinstance(f.condition, DateRange)]
            out.append(RowFilter(spanned))
            months = []
        if months and not any(isinstance(f.condition, DateRange) for f in out):
            # A range of days already says its months ("from January to March 2027").
            out.append(RowFilter(Months(_month_span(sorted(months), text))))
        return out

    @staticmethod
    def _paired(found: list[RowFilter]) -> list[RowFilter]:
        """Two single days in one message ("from 24 to 26 December") are one range."""
        ranges = [f for f in found if isinstance(f.condition, DateRange)]
        if len(ranges) == 2:
            a, b = ranges[0].condition, ranges[1].condition
            assert isinstance(a, DateRange) and isinstance(b, DateRange)
            if a.start and b.end and a.start == a.end and b.start == b.end and a.start < b.start:
                found.remove(ranges[0])
                found.remove(ranges[1])
                return [RowFilter(DateRange(a.start, b.end))]
        return []

    def _comparisons(self, text: str, used: list[tuple[int, int]]) -> list[RowFilter]:
        out: list[RowFilter] = []
        for m in _COMPARE.finditer(text):
            value = float(m.group(3).replace(",", "."))
            op = Op.LT if m.group(1) else Op.GT
            after = text[m.end() : m.end() + 40].split()[:3]
            out.append(RowFilter(Comparison(op, value, tuple(w for w in after if not w[0].isdigit()))))
            used.append(m.span())
        for m in _COMPARE_AFTER.finditer(text):
            value = float(m.group(1).replace(",", "."))
            out.append(RowFilter(Comparison(Op.LT if m.group(2) else Op.GT, value)))
            used.append(m.span())
        return out

    def _selection(self, text: str, used: list[tuple[int, int]]) -> Selection | None:
        if _AFTER_THAT.search(text):
            return Selection(Order.NEXT, 1, skip=1)
        latest = _LATEST.search(text)
        if latest is not None and re.match(r"most|koige|сам", latest.group(0)):
            # "the most recent", "kõige värskem", "самое свежее": the latest, no highest
            near = _count_near(text, latest.start(), latest.end())
            used.append(latest.span())
            return Selection(Order.LATEST, near or 1)
        for pattern, order in _EXTREME:
            m = pattern.search(text)
            if m is None:
                continue
            if (
                order is Order.HIGHEST
                and m.group(0) in ("most", "the most")
                and not re.match(r"\s+(?:\w+\s+){0,1}\w+", text[m.end() :])
            ):
                continue
            used.append(m.span())
            count = _count_asked(text[: m.start()]) or _count_near(text, m.start(), m.end()) or 0
            terms = tuple(w.strip("«»\"'.,?!") for w in text[m.end() : m.end() + 40].split()[:3])
            return Selection(order, count, tuple(t for t in terms if t and not t[0].isdigit()))
        for pattern, order in ((_NEXT, Order.NEXT), (_LATEST, Order.LATEST), (_EARLIEST, Order.EARLIEST)):
            # "the next 7 days", "последние 10 дней": a stretch of time read above, no row picked.
            m = next(
                (x for x in pattern.finditer(text) if not any(a <= x.start() < b for a, b in used)), None
            )
            if m is None:
                continue
            near = _count_near(text, m.start(), m.end())
            if near is None and (
                _PLURAL_CUE.match(text, m.start())
                or (not _SINGULAR_CUE.search(m.group(0)) and _plural_after(text[m.end() :]))
            ):
                continue
            used.append(m.span())
            return Selection(order, near or 1)
        m = _FIRST.search(text)
        if m is not None:
            first_count = _count_near(text, m.start(), m.end())
            if first_count is not None:
                used.append(m.span())
                return Selection(Order.FIRST, first_count)
        m = re.search(rf"(?<!\w)(?:only|just|ainult|vaid|только)\s+(?:the\s+)?{_N}(?!\w)", text)
        if (
            m is not None
            and not any(a <= m.start(1) < b for a, b in used)
            and (value := _int(m.group(1))) is not None
        ):
            # A number already read as hours or days ("only 8 to 12", "just 23–29 nov") is no count.
            return Selection(Order.FIRST, value)
        listed = _LISTED_COUNT.search(text)
        if (
            listed is not None
            and not any(a <= listed.start(1) < b for a, b in used)
            and not _month_follows(text[listed.end() :])
            and not _PERIOD_WORD.match(text, listed.end() + 1)
            and (value := _int(listed.group(1))) is not None
        ):
            # "list 4 finnish public holidays after …", "какие две каникулы будут после
            # летних", "näita 3 hääletust": a count opening the rows asked for, with no cue,
            # is the first rows of that many (in the result's order, after the filters).
            return Selection(Order.FIRST, value)
        return None

    def _aggregation(self, text: str) -> Aggregation | None:
        if _BREAKDOWN.search(text):
            # "из чего складывается сумма", "what is the total made up of": the parts of
            # an amount are asked, not their sum.
            return None
        if _DAYS_UNTIL.search(text):
            return Aggregation(Function.DAYS_UNTIL)
        if _DURATION.search(text):
            return Aggregation(Function.DURATION)
        if _AVERAGE.search(text):
            return Aggregation(Function.AVERAGE)
        spread = _RANGE.search(text)
        if spread is not None and not re.match(r"\W*(?:\w+\s+){0,2}\d", text[spread.end() :]):
            # "vahemikus 20. detsember kuni 10. jaanuar", "в диапазоне с 1 по 10": the words
            # name a period, its dates follow; the spread of a number is asked without them.
            return Aggregation(Function.RANGE)
        if (_SUM.search(text) or _ALTOGETHER.search(text)) and _AMOUNT.search(text):
            # "kui palju ma kokku maksan", "сколько всего налога за 2025 и 2026": an amount
            # paid altogether is a sum, no count of rows.
            return Aggregation(Function.SUM)
        how_many = _HOW_MANY.search(text) or _PALJU.search(text)
        if how_many is not None:
            terms = tuple(text[how_many.end() : how_many.end() + 40].split()[:3])
            if _DAYS_COUNTED.match(text, how_many.end()) and not _UNTIL_THEN.search(text):
                # "how many days is the spring break", "сколько дней летние каникулы": the
                # days a period lasts (a list of single days is counted all the same).
                return Aggregation(Function.DURATION, terms)
            return Aggregation(Function.COUNT, terms)
        if _ALTOGETHER.search(text) and re.search(r"(?<!\w)(?:how|mitu|сколько)(?!\w)", text):
            return Aggregation(Function.COUNT)
        if _SUM.search(text):
            return Aggregation(Function.SUM)
        return None

    def _day_first(self, raw: str, language: Lang) -> bool:
        """Whether the message opens with the one day it asks about ("1 мая выходной?", "а
        25 декабря у нас праздник?"): the day is the topic, what follows is said of it."""
        for mention in find_dates(raw, language, self._today()).dates:
            single = mention.last is None or mention.last == mention.value
            written = any(c.isdigit() for c in raw[mention.start : mention.end])  # not "завтра цены?"
            opens = re.fullmatch(r"\W*(?:(?:а|и|ну|a|ja|and)\s+)?", fold(raw[: mention.start]))
            if single and written and opens and _said_of_it(raw[mention.end :]):
                return True
        return False

    def _yes_no(self, text: str, compares: bool, one_day: bool = False) -> bool:
        if _POLITE_REQUEST.search(text[:200]):
            return False  # "can you list …", "kas sa saad näidata …": asked to do, not yes or no
        mark = text.rfind("?")
        if 0 <= mark < len(text.rstrip()) - 1:
            # "…cheaper than 40 €? I want to charge the car then": the question is the
            # sentence that ends with the mark; what follows only says why.
            # A dot after a digit is an ordinal ("24. detsember"), no sentence end.
            ends = [m.end() for m in _SENTENCE_END.finditer(text, 0, mark)]
            text = text[(ends[-1] if ends else 0) : mark + 1].strip()
        if _CONFIRM_TAG.search(text):
            return True
        if _YES_NO_TAIL.search(text) or _KAS.search(text) or _LI.search(text):
            return True
        if _YES_NO_EN.search(text) and not re.match(r"^\W*(?:what|which|when|where|who|how|why)\b", text):
            first_clause = re.split(r"[,;]", text)[-1]
            return not _EN_WH.search(first_clause.split(" ")[0] if first_clause else "")
        # "мой паспорт уже готов? номер заявки p1234567": the question ends at its "?",
        # the value given after it asks nothing.
        asked = text.rstrip()
        if "?" in asked and not _EN_WH.search(asked[asked.rfind("?") + 1 :]):
            text = asked[: asked.rfind("?") + 1]
        if not text.rstrip().endswith("?"):
            return False
        if _ELLIPSIS_START.match(text) and not compares:
            # "а в германии понедельник после пасхи выходной?": the ellipsis still says
            # something of its topic when it ends in a predicate ("выходной", "рабочий").
            return bool(re.search(r"[\u0400-\u04ff]", text)) and _ru_ends_in_predicate(text)
        if re.search(r"[\u0400-\u04ff]", text):
            # "1 мая выходной?", "25 декабря праздник у нас?": a day that opens a question
            # without a question word is asked about, as with a predicate.
            return not _ru_asks_which(text) and (
                bool(_RU_PREDICATE.search(text))
                or compares
                or one_day
                or bool(_COMPARATIVE.search(text))
                or _ru_states(text)
            )
        if _EN_WH.search(text) or _ET_WH.search(text):
            return False
        if _STATE_ASKED.search(text):
            return True
        return compares or bool(_COPULA_INSIDE.match(text[:300]))

    @staticmethod
    def _terms(text: str, used: list[tuple[int, int]]) -> tuple[str, ...]:
        out: list[str] = []
        for m in re.finditer(r"[^\W_]+", text):
            if any(a <= m.start() < b for a, b in used):
                continue
            word = m.group(0)
            if word in STOPWORDS or word in _CUE_WORDS or (len(word) < 3 and not word.isdigit()):
                continue
            if _PERIOD_WORD.fullmatch(word):
                continue  # "year", "päev", "неделя": the request's period, no row's name
            if word.isdigit() and len(word) == 4 and word.startswith(("19", "20")):
                continue  # a year is a value of the request
            if word not in out:
                out.append(word)
        return tuple(out[:24])


# Rows still ahead of today: "still to come", "yet to come", "still ahead", "remaining",
# "veel ees", "veel tulemas", "ees ootamas", "ещё впереди", "предстоящие", "оставшиеся".
_STILL_AHEAD = re.compile(
    r"(?<!\w)(?:(?:still|yet)\s+(?:to\s+come|ahead|coming|left)|remaining|"
    r"(?:veel|alles)\s+(?:ees|tulemas|tulekul|tulevad|tuleb)|ees\s+ootamas|"
    r"(?:ещ[её]\s+)?впереди|предстоящ\w*|предстоит|оставш\w*)(?!\w)"
)


# "как у нас", "как в Эстонии", "как и в прошлом году": "как" inside a sentence that
# compares, no question word.
_RU_LIKE = re.compile(r"(?<=\w)\s+как\s+(?:у|в|во|и|на|при)(?!\w)")


def _ru_asks_which(text: str) -> bool:
    """A Russian question word asks what, when, which…; "как" in a comparison does not."""
    return bool(_RU_WH.search(_RU_LIKE.sub(" ", text)))


def _ru_states(text: str) -> bool:
    """A Russian question with no question word that states something to confirm
    (pymorphy3): a verb in the indicative not said to the reader ("закон приняли?",
    "каникулы с понедельника начинаются?"; "покажешь цены?" asks for them), a
    possessive "у" + genitive opening it ("у детей сейчас каникулы?", "у финнов 6
    декабря праздник?"), or a day word followed by what is said of the day ("завтра
    выходной?")."""
    words = re.findall(r"[а-яё]+", text.lower())[:24]
    if not words:
        return False
    analyzer = russian_analyzer()
    # "у" with a genitive, wherever the day or the place puts it ("1 марта у школьников
    # каникулы?", "у финов 1 января выходной?"): the genitive may be any likely reading.
    for i, word in enumerate(words[:-2]):
        if word == "у" and any("gent" in p.tag for p in analyzer.parse(words[i + 1])[:2]):
            return True
    for word in words:
        tag = analyzer.parse(word)[0].tag
        if tag.POS == "VERB" and tag.mood == "indc" and tag.person != "2per":
            return True
    opening = _RU_DAY_WORD.match(text)
    return opening is not None and _said_of_it(text[opening.end() :])


# A relative day word opening a Russian question: "завтра выходной?", "сегодня праздник?".
_RU_DAY_WORD = re.compile(r"^\W*(?:(?:а|и|ну)\s+)?(?:сегодня|завтра|послезавтра|вчера)(?!\w)")


_RU_PREPOSITIONS = frozenset(
    {"в", "во", "на", "через", "за", "до", "после", "с", "со", "к", "по", "от", "у", "для"}
)


def _ru_ends_in_predicate(text: str) -> bool:
    """Whether a Russian question's last word is said of what comes before it: an adjective
    in the nominative ("выходной", "рабочий") or a singular noun read first as a nominative
    ("праздник"), not the object of a preposition ("а через год?")."""
    words = re.findall(r"[а-яё]+", text.lower())[-12:]
    if len(words) < 3 or words[-2] in _RU_PREPOSITIONS:
        return False
    parse = russian_analyzer().parse(words[-1])[0]
    grammemes = set(parse.tag.grammemes)
    if parse.tag.POS == "ADJF":
        return "nomn" in grammemes
    return parse.tag.POS == "NOUN" and {"sing", "nomn"} <= grammemes


def _said_of_it(rest: str) -> bool:
    """A verb, or a noun or adjective in the nominative singular, after the day ("выходной",
    "праздник", "рабочий день", "дети идут в школу"): something said of the day (pymorphy3),
    not a plural asked for ("24 декабря цены?")."""
    for word in re.findall(r"[а-яё]{3,}", rest.lower())[:8]:
        parse = russian_analyzer().parse(word)[0]
        grammemes = set(parse.tag.grammemes)
        # A plural-only noun ("каникулы") is one thing said of the day, like a singular.
        if parse.tag.POS == "VERB" or (
            parse.tag.POS in ("NOUN", "ADJF")
            and "nomn" in grammemes
            and ({"sing"} & grammemes or "Pltm" in grammemes)
        ):
            return True
    return False


def _through_next_day(row_filter: RowFilter) -> RowFilter:
    c = row_filter.condition
    if isinstance(c, DateRange) and c.end is not None and not row_filter.negate:
        return replace(row_filter, condition=DateRange(c.start, c.end + timedelta(days=1)))
    return row_filter


def _month_word(word: str, text: str, start: int) -> int | None:
    """A month named alone ("in December", "detsembris", "в декабре"); "may" and "march"
    only where English uses them as months (after in/of/by, or next to a number)."""
    month = month_of(word)
    if month is None or len(word) < 3:
        return None
    preposition = r"(?:\bin|\bof|\bby|\bduring|\buntil|\btill|\bto|\bfrom|\bsince|\bon|\d)\s*$"
    if word in ("may", "march", "mai") and not re.search(preposition, text[:start]):
        return None
    return month


def _next_year(day: date | None) -> date | None:
    if day is None:
        return None
    try:
        return day.replace(year=day.year + 1)
    except ValueError:  # 29 February
        return day.replace(year=day.year + 1, day=28)


_MONTH_LINK = re.compile(
    r"^\W*(?:st\s+|-?st\s+)?(?:to|until|till|through|-|–|kuni|по|до)\W*$|^[^\W\d]*st\s+$"
)


def _linked(text: str, start_a: int, start_b: int) -> bool:
    between = text[start_a:start_b]
    link = re.sub(r"^[^\W\d]+", "", between)
    return bool(_MONTH_LINK.match(link) or re.search(r"(?:st|ist)\s+$", between.split()[0] + " "))


def _month_range_with_year(
    months: list[tuple[int, int]], year_months: list[tuple[int, int, int]], text: str
) -> DateRange | None:
    for start_a, a in months:
        for start_b, b, year in year_months:
            if start_a < start_b and _linked(text, start_a, start_b):
                first_year = year if a <= b else year - 1
                last = date(year, b, calendar.monthrange(year, b)[1])
                return DateRange(date(first_year, a, 1), last)
    return None


def _month_span(months: list[tuple[int, int]], text: str) -> tuple[int, ...]:
    """Months named, with a range between two ("January to March", "jaanuarist märtsini",
    "с января по март") read as every month of it."""
    found = [m for _, m in months]
    for (start_a, a), (start_b, b) in pairwise(months):
        if _linked(text, start_a, start_b):
            found.extend(((a - 1 + k) % 12) + 1 for k in range((b - a) % 12 + 1))
    return tuple(sorted(set(found)))


def _day_span_follows(rest: str) -> bool:
    """A month, or the end of a range of days and its month, follows: "с 1 по 7 декабря",
    "from 1 to 7 December", "alates 1. kuni 7. detsembrini" name days, not an hour."""
    link = re.match(r"\s*\.?\s*(?:-|–|—|to|until|till|through|kuni|по|до)\s*\d{1,2}(?:st|nd|rd|th|\.)?", rest)
    return _month_follows(rest) or (link is not None and _month_follows(rest[link.end() :]))


def _month_follows(rest: str) -> bool:
    m = re.match(r"\s*\.?\s*([^\W\d_]{3,})", rest)
    return m is not None and month_of(m.group(1)) is not None


_DAY_SPAN = re.compile(r"(?<![\d.])(\d{1,2})\.?\s*(?:-|–|—|\.\.)\s*(\d{1,2})\.?\s*([^\W\d_]{3,})")


def _one_date_range(found: list[RowFilter], text: str) -> list[RowFilter]:
    """Every date the message names is one window: their span ("1–7 dec" is the 1st to the
    7th even where only "7 dec" was read as a date; "this week, Monday to Sunday" one range)."""
    ranges = [f.condition for f in found if isinstance(f.condition, DateRange) and not f.negate]
    if not ranges:
        return found
    if len(ranges) == 2:
        one, two = ranges
        moved_start = _next_year(two.start)
        moved_end = _next_year(two.end) or moved_start
        if (
            one.start
            and two.start
            and moved_start
            and moved_end
            and two.start < one.start < moved_start
            and moved_end - one.start < (one.end or one.start) - two.start
        ):
            # "from 20 December to 10 January": the second day is in the next year. Not
            # when that reading is the longer one: "tomorrow than today", "сегодня … чем
            # вчера" name two days next to each other, never a year between them.
            ranges = [one, DateRange(moved_start, moved_end)]
    starts = [r.start for r in ranges if r.start is not None]
    ends = [r.end for r in ranges if r.end is not None]
    start, end = (min(starts) if starts else None), (max(ends) if ends else None)
    for m in _DAY_SPAN.finditer(text):
        month = month_of(m.group(3))
        if month is None or end is None or end.month != month:
            continue
        day_number = int(m.group(1))
        if 1 <= day_number <= end.day and (start is None or start.month == month):
            opening = end.replace(day=day_number)
            start = opening if start is None else min(start, opening)
    rest = [f for f in found if not (isinstance(f.condition, DateRange) and not f.negate)]
    return [*rest, RowFilter(DateRange(start, end))]


def _plural_after(rest: str) -> bool:
    """The word after a cue is plural: "next holidays", "järgmised pühad", "последние голосования"."""
    following = re.findall(r"\w+", rest)[:2]
    if not following:
        return False
    word = following[0]
    if re.search(r"[\u0400-\u04ff]", word):
        return bool(re.search(r"(?:ии|ие|ые|ых|ы|и)$", word))
    if re.search(r"[a-z]", word) and not re.search(r"[õäöü]", word) and len(following) > 1:
        # English: "next public holidays" — the noun may come second.
        return any(w.endswith("s") and not w.endswith(("ss", "us", "is")) for w in following)
    return word.endswith(("s", "d", "id")) and not word.endswith(("ss", "us", "is"))


_PARTS = re.compile(r"\s+(?:and also|and|ja|ning|и|а также|plus|[+&])\s+|[?;!]\s*|\.\s+", re.I)


def question_parts(question: str) -> list[str]:
    """The parts of a question that asks two things ("cheapest hour tomorrow and the
    latest vote"), split at conjunctions and sentence ends."""
    return [p.strip() for p in _PARTS.split(question) if p and p.strip()]


def part_for(question: str, endpoint_text: str) -> str:
    """The part of a two-part question that is about the endpoint described by
    `endpoint_text` (most stems in common); the whole question when no part leads."""
    from services.text import Stemmer

    parts = question_parts(question)
    if len(parts) < 2:
        return question
    stemmer = Stemmer()
    known = set(stemmer.terms(endpoint_text))
    scored = [(len(set(stemmer.terms(p)) & known), i) for i, p in enumerate(parts)]
    best, index = max(scored)
    if best == 0 or sum(1 for s, _ in scored if s == best) > 1:
        return question
    return parts[index]


_COUNT_PARAM = re.compile(r"how many|number of|limit|max(?:imum)? (?:number|count)|page size|count", re.I)
_RANGE_MAX = re.compile(r"\b\d+\s*(?:-|–|to)\s*(\d+)\b|(?:up to|at most|max(?:imum)?\.?)\s*(\d+)", re.I)


def widened(params: dict[str, str], specs: Sequence[ParamSpec], shape: AnswerShape) -> dict[str, str]:
    """A question for every row, or for the rows of a period, needs the most rows the
    endpoint gives: an optional count parameter left unset ("How many … to return
    (1-100, default 10)") is set to its stated maximum."""
    wants_all = shape.kind is Kind.FULL_LIST or any(
        isinstance(f.condition, DateRange | Months) for f in shape.filters
    )
    if not wants_all:
        return params
    out = dict(params)
    day = _one_day_asked(shape)
    if shape.kind is Kind.YES_NO and day is not None:
        # "Is 24 December a holiday in Germany?": the week around the day is asked, so that
        # when no row is on it the answer names the nearest ones (25 and 26 December).
        for start, end in date_pairs(specs):
            asked = (out.get(start.name), out.get(end.name))
            if start.concept is end.concept is Concept.DATE and asked == (day.isoformat(),) * 2:
                out[start.name] = (day - AROUND_THE_DAY).isoformat()
                out[end.name] = (day + AROUND_THE_DAY).isoformat()
    for spec in specs:
        if spec.required or out.get(spec.name) or spec.type not in ("integer", "number"):
            continue
        if not _COUNT_PARAM.search(f"{spec.name} {spec.description}"):
            continue
        m = _RANGE_MAX.search(spec.description)
        if m is not None:
            out[spec.name] = next(g for g in m.groups() if g)
    return out


# The most days of a request window `fitted_to_window` looks at (a window is at most a
# few years: the cost stays bounded whatever the values say).
_FIT_MAX_DAYS = 1200


def _window_days(specs: Sequence[ParamSpec], params: dict[str, str], zone: tzinfo) -> list[date] | None:
    for start, end in date_pairs(specs):
        try:
            opens = datetime.fromisoformat(params[start.name].replace("Z", "+00:00"))
            closes = datetime.fromisoformat(params[end.name].replace("Z", "+00:00"))
        except (KeyError, ValueError):
            continue
        if opens.tzinfo is not None:
            opens, closes = opens.astimezone(zone), closes.astimezone(zone)
        first, last = opens.date(), closes.date()
        count = (last - first).days + 1
        if count <= 0 or count > _FIT_MAX_DAYS:
            return None
        return [first + timedelta(days=k) for k in range(count)]
    return None


def _day_holds(row_filter: RowFilter, day: date) -> bool:
    condition = row_filter.condition
    if isinstance(condition, DateRange):
        held = condition.contains(day)
    elif isinstance(condition, Months):
        held = day.month in condition.months
    else:
        held = isinstance(condition, Weekdays) and day.isoweekday() in condition.days
    return held != row_filter.negate


def fitted_to_window(
    shape: AnswerShape, specs: Sequence[ParamSpec], params: dict[str, str], zone: tzinfo
) -> AnswerShape:
    """The shape of a question whose request window was read from the same words: day
    filters that together keep no day of that window were the window's own ends, misread
    as a filter ("esmaspäevast tänaseni" as Monday and today, "Monday to Wednesday this
    week" after "the whole of October" as October's Mondays to Wednesdays); they are
    dropped, and the window's rows are the answer's."""
    day_filters = [f for f in shape.filters if isinstance(f.condition, DateRange | Months | Weekdays)]
    if not day_filters:
        return shape
    days = _window_days(specs, params, zone)
    if days is None or any(all(_day_holds(f, d) for f in day_filters) for d in days):
        return shape
    # A filter that alone keeps none of the window goes first (October's days in a window
    # of November); if the rest still keep nothing, they go too.
    kept = [f for f in day_filters if any(_day_holds(f, d) for d in days)]
    if not any(all(_day_holds(f, d) for f in kept) for d in days):
        kept = []
    return replace(shape, filters=tuple(f for f in shape.filters if f not in day_filters or f in kept))


# The days either side of a day asked about whose rows are fetched with it.
AROUND_THE_DAY = timedelta(days=7)


def _one_day_asked(shape: AnswerShape) -> date | None:
    days = [f.condition for f in shape.filters if isinstance(f.condition, DateRange) and not f.negate]
    if len(days) == 1 and days[0].start is not None and days[0].start == days[0].end:
        return days[0].start
    return None


def _kinds(shape: AnswerShape) -> set[type]:
    return {type(f.condition) for f in shape.filters}


def _asks_own(shape: AnswerShape) -> bool:
    return (
        shape.selection is not None
        or shape.aggregation is not None
        or shape.kind
        in (
            Kind.YES_NO,
            Kind.FULL_LIST,
        )
    )


def for_param_update(previous: AnswerShape, current: AnswerShape) -> AnswerShape:
    """The same question with new values ("and last weekend?", "sorry, Monday not
    Friday"): the previous question's shape, with the follow-up's own filters in place
    of those of their kind. Day filters always come from the follow-up: the new values
    are new days."""
    replaced = _kinds(current) | {DateRange, Months}
    kept = tuple(f for f in previous.filters if type(f.condition) not in replaced)
    own = _asks_own(current)
    terms = tuple(dict.fromkeys((*current.terms, *previous.terms)))
    return AnswerShape(
        kind=current.kind if own else previous.kind,
        filters=(*kept, *current.filters),
        selection=current.selection if own else previous.selection,
        aggregation=current.aggregation if own else previous.aggregation,
        terms=terms[:24],
        question=current.question or previous.question,
    )


def compared_with_last(current: AnswerShape, reference: DateRange) -> AnswerShape | None:
    """A follow-up that compares its one period with the last answer's ("so how much
    cheaper is today" after yesterday's average, "kas homme on kallim?", "а сегодня
    дешевле?"): a comparative, no "than", one period of its own that is not the last
    one. Its shape compares the two periods' means (the yes/no, both means, their
    difference); None for anything else."""
    text = fold(current.question)
    found = _COMPARATIVE.search(text)
    # "kui palju" is "how much", no "than".
    than = _THAN.search(re.sub(r"(?<!\w)kui\s+(?:palju|kaua|suur\w*)", " ", text))
    if found is None or than is not None or current.period_comparison is not None:
        return None
    days = [f.condition for f in current.filters if isinstance(f.condition, DateRange) and not f.negate]
    if len(days) != 1 or reference.start is None or reference.end is None:
        return None
    subject = days[0]
    if subject.start is None or subject.end is None or subject.overlaps(reference.start, reference.end):
        return None
    op = Op.LT if found.group("lower") else Op.GT
    undated = tuple(f for f in current.filters if not isinstance(f.condition, DateRange | Months | Weekdays))
    return replace(
        current,
        kind=Kind.YES_NO,
        filters=undated,
        selection=None,
        aggregation=None,
        period_comparison=PeriodComparison(subject, reference, op),
    )


def for_response_question(previous: AnswerShape, current: AnswerShape) -> AnswerShape:
    """A question about the rows just shown ("which of those fall on a Monday?", "and
    the most expensive?"): the follow-up's operations on the rows the previous answer
    was about — its filters stay, unless the follow-up filters by the same kind."""
    kept = tuple(f for f in previous.filters if type(f.condition) not in _kinds(current))
    # The previous words stay after the follow-up's own: "which weekdays do they fall on?"
    # after "Christmas in Estonia" still means the Christmas holidays.
    terms = tuple(dict.fromkeys((*current.terms, *previous.terms)))[:24]
    shaped = replace(current, filters=(*kept, *current.filters), terms=terms)
    single = previous.selection is not None and previous.selection.count <= 1
    if single and current.selection is None and current.aggregation is None:
        # "did it pass?" after "which one had the most absent": the one row shown.
        shaped = replace(shaped, selection=previous.selection)
    return shaped


def for_session_reply(question: AnswerShape, reply: AnswerShape) -> AnswerShape:
    """The shape of a question whose values came over several turns: the question's, with
    what a later reply asks of its own ("ok then 23–29 nov, average" after "the whole of
    November": its days and its average). A reply that only gives a value ("Finland",
    "yes") leaves the question's shape as it was; one with no days keeps the question's."""
    if not reply.filters and not _asks_own(reply):
        return question
    if not _kinds(reply) & {DateRange, Months}:
        days = tuple(f for f in question.filters if isinstance(f.condition, DateRange | Months))
        reply = replace(reply, filters=(*days, *reply.filters))
    return for_param_update(question, reply)
