"""Sentence segmenter: the original's rules and examples plus the English / markup fixes."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from genx.transformers.streamkit import SentenceSegmenter, SpokenTextFilter, has_speakable


@dataclass(frozen=True)
class Case:
    name: str
    chunks: tuple[str, ...]
    streamed: tuple[str, ...]  # segments returned by segments() after each write, concatenated
    flushed: tuple[str, ...]  # segments(flush=True) at the end
    language: str = "auto"
    max_chars: int = 80


def c(name: str, chunks: str | tuple[str, ...], streamed: tuple[str, ...], flushed: tuple[str, ...], **kw: object) -> Case:
    return Case(name, (chunks,) if isinstance(chunks, str) else chunks, streamed, flushed, **kw)  # type: ignore[arg-type]


CASES = [
    # --- Chinese: the original's examples ----------------------------------------------------------
    c("doc_decimal_and_time", "你好，我的朋友。3.14 是一个小数，10:15 是时间", ("你好，我的朋友。3.14 是一个小数，",), ("10:15 是时间",)),
    c("doc_short_first_segment_waits", "好的，", (), ("好的，",)),
    c("short_first_joins_next_sentence", ("好的，", "我来讲一个。"), ("好的，我来讲一个。",), ()),
    c("strong_boundary_at_4_chars_allowed_first", "嘘，都别出声！这", ("嘘，都别出声！",), ("这",)),
    c("longest_weak_boundary_in_first_window", "山雨斜斜打在破庙门前，悟空抬头，后面", ("山雨斜斜打在破庙门前，悟空抬头，",), ("后面",)),
    c(
        "control_tag_and_bracket_url_removed",
        '<node id="answer" />我没办法实时更新天气信息哦（https://example.com/weather）。',
        ("我没办法实时更新天气信息哦。",),
        (),
    ),
    c("enumeration_comma_never_splits", "苹果、香蕉、橘子、葡萄和西瓜都很好吃", (), ("苹果、香蕉、橘子、葡萄和西瓜都很好吃",)),
    c("time_split_across_chunks", ("会议在10", ":15开始，请准时到达。"), ("会议在10:15开始，请准时到达。",), ()),
    c("decimal_split_across_chunks", ("圆周率是3", ".14，很有名。"), ("圆周率是3.14，很有名。",), ()),
    c(
        "later_segments_wait_for_a_full_sentence",
        ("好的，我来讲一个故事。", "从前有座山，山里有座庙，", "庙里有个老和尚。"),
        ("好的，我来讲一个故事。", "从前有座山，山里有座庙，庙里有个老和尚。"),
        (),
    ),
    c("chinese_ellipsis_run_stays_together", "他想了想……然后说好吧。", ("他想了想……然后说好吧。",), ()),
    c("closing_quote_stays_with_sentence", "他说：“我们走吧！”然后离开了。", ("他说：“我们走吧！”然后离开了。",), ()),
    c("hard_cut_at_max_chars", "一二三四五", ("一二三",), ("四五",), max_chars=3),
    c("hard_cut_at_80_without_boundary", "字" * 100, ("字" * 80,), ("字" * 20,)),
    c("wave_dash_is_a_weak_boundary", "好呀～我们一起去玩吧～", ("好呀～我们一起去玩吧～",), ()),
    c("mixed_chinese_english", "我喜欢Python。它很好用！", ("我喜欢Python。它很好用！",), ()),
    c("zh_rules_cut_at_any_period", "Hello world. Bye", ("Hello world.",), ("Bye",), language="zh"),
    c("trailing_decimal_point_waits", "价格是3.", (), ("价格是3.",)),
    c("space_before_cjk_punctuation_dropped", "你好 ，世界 。今天天气不错", ("你好，世界。",), ("今天天气不错",)),
    c("empty_brackets_dropped", "请看（）这里的说明文字。", ("请看这里的说明文字。",), ()),
    c("chinese_list_lines", "步骤：\n1. 打开电脑\n2. 登录账号\n", ("步骤：", "打开电脑", "登录账号"), ()),
    # --- English ---------------------------------------------------------------------------------------
    c("space_between_chunks_survives", ("Hello ", "world."), (), ("Hello world.",)),
    c("titles_do_not_split", "Mr. Smith met Dr. Jones. They talked.", ("Mr. Smith met Dr. Jones.",), ("They talked.",)),
    c(
        "eg_and_ie_do_not_split",
        "We saw e.g. apples and i.e. red ones. Then we ate.",
        ("We saw e.g. apples and i.e. red ones.",),
        ("Then we ate.",),
    ),
    c(
        "us_then_lowercase_does_not_split",
        "He moved to the U.S. last year. It was fun.",
        ("He moved to the U.S. last year.",),
        ("It was fun.",),
    ),
    c("us_then_capital_does_not_split", "The U.S. Army is big. Yes.", ("The U.S. Army is big.",), ("Yes.",)),
    c("decimal_does_not_split", "Pi is roughly 3.14159 today. Nice.", ("Pi is roughly 3.14159 today.",), ("Nice.",)),
    c("decimal_split_across_english_chunks", ("It costs 3", ".50 dollars now. Ok."), ("It costs 3.50 dollars now.",), ("Ok.",)),
    c("time_does_not_split", "Meet me at 10:15 tomorrow. Bye now.", ("Meet me at 10:15 tomorrow.",), ("Bye now.",)),
    c("thousands_separator_does_not_split", "About 1,000 people came to see it. Wow.", ("About 1,000 people came to see it.",), ("Wow.",)),
    c("ellipsis_before_lowercase_continues", "Well... maybe we should go home. Sure.", ("Well... maybe we should go home.",), ("Sure.",)),
    c(
        "ellipsis_is_a_weak_boundary",
        "I was thinking... Maybe not today. Fine.",
        ("I was thinking...", "Maybe not today."),
        ("Fine.",),
    ),
    c(
        "quoted_exclamation_mid_sentence",
        'She said "Stop!" and walked away. Then silence.',
        ('She said "Stop!" and walked away.',),
        ("Then silence.",),
    ),
    c(
        "quoted_sentence_end_keeps_quote",
        'He shouted "Run!" Then everyone ran away fast.',
        ('He shouted "Run!"',),
        ("Then everyone ran away fast.",),
    ),
    c("terminal_run_stays_together", "Are you sure?! Yes I am. Ok", ("Are you sure?! Yes I am.",), ("Ok",)),
    c("initials_do_not_split", "J. K. Rowling wrote many books. Really.", ("J. K. Rowling wrote many books.",), ("Really.",)),
    c("first_strong_boundary_needs_4_chars", "Hi. How are you today? Good.", ("Hi. How are you today?",), ("Good.",)),
    c(
        "first_segment_short_then_full_sentences",
        "Sure, I can help with that. The capital of France is Paris, which is famous for the Eiffel Tower. It has many museums.",
        ("Sure, I can help with that.", "The capital of France is Paris, which is famous for the Eiffel Tower."),
        ("It has many museums.",),
    ),
    c(
        "markdown_heading_bold_bullets",
        "# Title\n**Bold** text here.\n- one item\n- two item\n",
        ("Title", "Bold text here.", "one item", "two item"),
        (),
    ),
    c(
        "markdown_link_and_code_span",
        "See [the docs](https://example.com/docs) and run `pip install x` now.",
        (),
        ("See the docs and run pip install x now.",),
    ),
    c("numbered_list", "Steps:\n1. Open it\n2. Close it", ("Steps:", "Open it"), ("Close it",)),
    c("unclosed_tag_text_is_not_lost", "<emotion>I am so happy today", (), ("I am so happy today",)),
    c("closed_control_element_dropped", "<emotion>happy</emotion>I am glad you asked. Sure.", ("I am glad you asked.",), ("Sure.",)),
    c("bare_url_dropped_sentence_end_kept", "Visit https://example.com/page. Then rest a while.", ("Visit.",), ("Then rest a while.",)),
    c("tag_split_across_chunks", ("Hello <emo", "tion>x</emotion>there my friend. Ok"), ("Hello there my friend.",), ("Ok",)),
    c("ssml_wrapper_is_transparent", "<speak>Hello there, my good friend.</speak>", ("Hello there,",), ("my good friend.",)),
    c("whitespace_collapses", "Hello   there,\t\tmy  friend.", ("Hello there,",), ("my friend.",)),
    c("hard_cut_english_at_a_space", "word " * 30, (" ".join(["word"] * 16),), (" ".join(["word"] * 14),)),
    c("bracketed_url_in_english", "Docs are here (see https://x.io/a) for you. Ok", ("Docs are here for you.",), ("Ok",)),
    c("italic_and_strike_markers", "This is _really_ ~~not~~ *fine* today. Ok", ("This is really not fine today.",), ("Ok",)),
    c("blockquote_and_rule", "> Quoted words here.\n---\nAfter the rule.", ("Quoted words here.",), ("After the rule.",)),
]


def run(case: Case) -> tuple[list[str], list[str]]:
    seg = SentenceSegmenter(language=case.language, max_chars=case.max_chars)
    streamed: list[str] = []
    for ch in case.chunks:
        seg.write(ch)
        streamed += seg.segments()
    return streamed, seg.segments(flush=True)


def test_there_are_at_least_40_cases_in_both_languages() -> None:
    cjk = [k for k in CASES if re.search(r"[\u4e00-\u9fff]", "".join(k.chunks))]
    assert len(CASES) >= 40 and len(cjk) >= 15 and len(CASES) - len(cjk) >= 25


@pytest.mark.parametrize("case", CASES, ids=[k.name for k in CASES])
def test_segmenter_table(case: Case) -> None:
    streamed, flushed = run(case)
    assert (streamed, flushed) == (list(case.streamed), list(case.flushed))


def test_first_segment_is_emitted_as_soon_as_its_boundary_arrives() -> None:
    seg = SentenceSegmenter()
    seg.write("Sure, I can")
    assert seg.segments() == []
    seg.write(" help you, with")
    assert seg.segments() == ["Sure, I can help you,"]


def test_flush_resets_to_a_new_first_segment() -> None:
    seg = SentenceSegmenter()
    seg.write("第一段很长的句子。")
    assert seg.segments(flush=True) == ["第一段很长的句子。"]
    seg.write("好的，")
    assert seg.segments() == []  # first-segment rules again


def test_unknown_language_is_rejected() -> None:
    with pytest.raises(ValueError, match="language"):
        SentenceSegmenter(language="fr")


@pytest.mark.parametrize(("text", "speakable"), [("。", False), ("……", False), ("?!", False), ("好", True), ("3", True), ("a.", True)])
def test_has_speakable_needs_a_letter_or_digit(text: str, speakable: bool) -> None:
    assert has_speakable(text) is speakable


def test_filter_holds_an_open_bracket_until_it_closes() -> None:
    f = SpokenTextFilter()
    assert f.feed("see (https://x.io") == "see "
    assert f.feed(") now") == " now"


def test_filter_releases_a_long_unclosed_bracket_as_text() -> None:
    f = SpokenTextFilter()
    out = f.feed("(" + "a" * 400)
    assert out.startswith("(a")


# -- property: no non-space character lost or duplicated -----------------------------------------------
ALPHABET = "abcdeXYZ你好世界天 .,!?;:，。！？；：、…\n0123456789"
LIST_MARKER = re.compile(r"(?m)^[ \t]*\d{1,3}[.)][ \t]")


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet=ALPHABET, max_size=300), cuts=st.lists(st.integers(0, 300), max_size=12), lang=st.sampled_from(["auto", "zh"]))
def test_segmenter_never_loses_or_duplicates_a_non_space_character(text: str, cuts: list[int], lang: str) -> None:
    assume(not LIST_MARKER.search(text))
    bounds = sorted({min(c, len(text)) for c in cuts} | {0, len(text)})
    seg = SentenceSegmenter(language=lang)
    out: list[str] = []
    for a, b in itertools.pairwise(bounds):
        seg.write(text[a:b])
        out += seg.segments()
    out += seg.segments(flush=True)
    assert "".join("".join(out).split()) == "".join(text.split())
    assert all(s and s == s.strip() and len(s) <= 80 for s in out)
