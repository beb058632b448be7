"""Numbers as tables and prose write them: `(1,234.5)`, `-12 %`, `$3.2`, `€ 40`, `1.2x`.

A cell *is* a number only when its whole text is one (with its sign, currency, percent and
a short unit such as `bps`, `x`, `M`); a cell that merely holds digits among words
(`Q1 FY25`, `2024 outlook`) is text. Parentheses around a number make it negative, as
accounts write it; thousands separators are dropped; the number of decimals written is kept,
since the checks compare sums to the precision the cells are written at.

A unit can also come from a header (`Revenue ($ millions)`, `Margin (%)`, `in thousands`):
`header_unit` reads it, and a cell without its own unit takes its column's or row's.
"""

from __future__ import annotations

import re

from chunker.structured.records import NumberValue

CURRENCIES = {"$": "USD", "US$": "USD", "€": "EUR", "£": "GBP", "¥": "JPY", "₹": "INR",
              "USD": "USD", "EUR": "EUR", "GBP": "GBP", "JPY": "JPY", "INR": "INR"}
"""Currency signs and codes a number may carry, and the code each stands for."""

SUFFIX_UNITS = ("bps", "bp", "pp", "pts", "x", "k", "m", "mn", "bn", "b", "million", "billion",
                "thousand")
"""Short units a number may be written with, after it (case-insensitive)."""

SCALES = {"thousand": "thousands", "thousands": "thousands", "k": "thousands", "000s": "thousands",
          "million": "millions", "millions": "millions", "mn": "millions", "m": "millions",
          "billion": "billions", "billions": "billions", "bn": "billions", "b": "billions"}

_MINUS = "\u2212\u2013\u2012-"  # minus sign, en dash, figure dash, hyphen (last: literal in [...])
_CUR = r"(?:US\$|[$€£¥₹]|USD|EUR|GBP|JPY|INR)"
_NUM = r"(?:\d{1,3}(?:[,\u202f\u00a0 ]\d{3})+|\d+)(?:\.\d+)?|\.\d+"
_UNIT = "|".join(sorted(SUFFIX_UNITS, key=len, reverse=True))
_CELL = re.compile(
    rf"^(?P<sign>[+{_MINUS}])?\s*(?P<cur0>{_CUR})?\s*(?P<open>\()?\s*(?P<sign2>[+{_MINUS}])?\s*(?P<cur>{_CUR})?\s*"
    rf"(?P<sign3>[+{_MINUS}])?(?P<num>{_NUM})\s*(?P<pct>%)?\s*(?P<close>\))?\s*(?P<pct2>%)?"
    rf"\s*(?P<unit>(?:{_UNIT})\b)?\.?\s*(?P<mark>\*+|†|‡)?$", re.IGNORECASE)
_MARKUP = re.compile(r"^[*_`]+|[*_`]+$")
_HEADER_UNIT = re.compile(r"\(([^()]*)\)|\bin\s+(thousands|millions|billions)\b|(%)", re.IGNORECASE)
# Numbers inside running text: what the prose cross-check compares with the tables.
PROSE_NUMBER = re.compile(
    rf"(?<![\w.])(?P<all>\(?[+{_MINUS}]?{_CUR}?\s?(?:{_NUM})\s?(?:%|(?:{_UNIT})\b)?\)?)")


def parse_number(text: str, unit: str | None = None) -> NumberValue | None:
    """The number `text` states, or None when it is not one number; `unit` is the unit its
    header gives (`%`, `USD millions`), used when the text has none of its own."""
    raw = " ".join(text.split())
    while True:  # **12.5** and `12.5` are numbers too
        stripped = _MARKUP.sub("", raw).strip()
        if stripped == raw:
            break
        raw = stripped
    m = _CELL.match(raw)
    if m is None:
        return None
    if bool(m.group("open")) != bool(m.group("close")):
        return None
    digits = m.group("num")
    value = float(re.sub(r"[,\u202f\u00a0 ]", "", digits))
    signs = [m.group(k) for k in ("sign", "sign2", "sign3") if m.group(k)]
    if len(signs) > 1:
        return None
    negative = bool(m.group("open")) or (bool(signs) and signs[0] in _MINUS)
    if negative:
        value = -value
    decimals = len(digits.split(".", 1)[1]) if "." in digits else 0
    percent = bool(m.group("pct") or m.group("pct2"))
    sign = m.group("cur") or m.group("cur0") or ""
    currency = CURRENCIES.get(sign) or CURRENCIES.get(sign.upper())
    own_unit = (m.group("unit") or "").lower() or None
    header = parse_unit(unit)
    if percent or (header.get("unit") == "%" and not currency and not own_unit):
        return NumberValue(value=value, text=text.strip(), decimals=decimals, percent=True, unit="%")
    if own_unit and own_unit not in SCALES:  # bps, x, pp: a unit of its own
        return NumberValue(value=value, text=text.strip(), decimals=decimals, unit=own_unit)
    currency = currency or header.get("currency")
    scale = SCALES.get(own_unit or "") or header.get("scale")
    shown = " ".join(x for x in (currency, scale) if x) or (header.get("unit") if unit else None)
    return NumberValue(value=value, text=text.strip(), decimals=decimals, currency=currency,
                       scale=scale, unit=shown or None)


def parse_unit(unit: str | None) -> dict[str, str]:
    """`unit` as written in a header (`$ millions`, `%`, `in thousands`, `USD`) split into its
    currency, scale and the unit string it is shown as."""
    if not unit:
        return {}
    words = unit.replace("$", " $ ").replace("€", " € ").replace("£", " £ ").split()
    out: dict[str, str] = {}
    for w in words:
        low = w.lower().strip(".,")
        if w in CURRENCIES or w.upper() in CURRENCIES:
            out["currency"] = CURRENCIES.get(w) or CURRENCIES[w.upper()]
        elif low in SCALES:
            out["scale"] = SCALES[low]
        elif low == "%" or low == "percent":
            out["unit"] = "%"
    if "unit" not in out:
        out["unit"] = " ".join(x for x in (out.get("currency"), out.get("scale")) if x) or unit.strip()
    return out


def header_unit(label: str) -> str | None:
    """The unit a header or caption states: `Revenue ($ millions)` -> `$ millions`,
    `Margin (%)` -> `%`, `(in thousands)` -> `in thousands`; None when it states none."""
    for m in _HEADER_UNIT.finditer(label or ""):
        inner = (m.group(1) or m.group(2) or m.group(3) or "").strip()
        parsed = parse_unit(inner)
        if parsed.get("currency") or parsed.get("scale") or parsed.get("unit") == "%":
            return inner
    return None


def decimals_of(text: str) -> int:
    m = re.search(r"\.(\d+)", text)
    return len(m.group(1)) if m else 0


def prose_numbers(text: str, start: int = 0, end: int | None = None):
    """(start, end, NumberValue) of each number written in running text, spans in `text`."""
    for m in PROSE_NUMBER.finditer(text, start, len(text) if end is None else end):
        got = parse_number(m.group("all"))
        if got is not None:
            lead = len(m.group("all")) - len(m.group("all").lstrip())  # `\s?` before a number without a currency
            yield m.start("all") + lead, m.start("all") + len(m.group("all").rstrip()), got
