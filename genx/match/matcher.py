"""The compiled matcher: rules checked once, the prompt rendered once, parsing and matching.

``Matcher.match(generator, pattern, ctx)`` runs one generation with the
matcher's prompt added after the caller's prompts (the caller's context keeps
the user message) and yields results as lines complete. The model's stream is
closed when the iteration ends, early or not. A stream error is raised after the
results parsed before it; a torn last line is not a result.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import TYPE_CHECKING

from genx.chunk import Text
from genx.errors import Done
from genx.match.grammar import gbnf
from genx.match.parse import LineParser, MatchResult
from genx.match.prompt import DEFAULT_TEMPLATE, render_prompt
from genx.match.rules import Rule, check_rule_set
from genx.model import ModelContext, ModelContextBuilder, MultiModelContext
from genx.stream import Stream

if TYPE_CHECKING:
    from genx.generators import Generator


class Matcher:
    """Rules compiled into a prompt, a grammar and a parser."""

    __slots__ = ("_by_name", "_grammar", "prompt", "rules")

    def __init__(self, rules: Sequence[Rule], *, none_examples: Sequence[str] = (), template: str = DEFAULT_TEMPLATE) -> None:
        self.rules = check_rule_set(rules)
        self._by_name = {r.name: r for r in self.rules}
        self.prompt = render_prompt(self.rules, none_examples=none_examples, template=template)
        self._grammar: str | None = None

    def rule(self, name: str) -> Rule | None:
        return self._by_name.get(name)

    @property
    def grammar(self) -> str:
        """The llama.cpp GBNF grammar for one answer line (see :mod:`genx.match.grammar`)."""
        if self._grammar is None:
            self._grammar = gbnf(self.rules)
        return self._grammar

    def parser(self) -> LineParser:
        return LineParser(self._by_name)

    def parse(self, text: str) -> list[MatchResult]:
        """Every result in a whole answer."""
        p = self.parser()
        return p.feed(text) + p.close()

    def context(self, ctx: ModelContext) -> ModelContext:
        """``ctx`` with the matcher's prompt after its own."""
        return MultiModelContext(ctx, ModelContextBuilder().prompt(self.prompt, name="match").build())

    async def parse_stream(self, stream: Stream) -> AsyncIterator[MatchResult]:
        """Results from a model stream's text parts; closes the stream when done."""
        p = self.parser()
        try:
            while True:
                try:
                    chunk = await stream.next()
                except Done:
                    break
                if isinstance(chunk.part, Text) and chunk.part.text:
                    for r in p.feed(chunk.part.text):
                        yield r
            for r in p.close():
                yield r
        finally:
            await stream.close()

    async def match(self, generator: Generator, pattern: str, ctx: ModelContext) -> AsyncIterator[MatchResult]:
        stream = await generator.generate_stream(pattern, self.context(ctx))
        async for r in self.parse_stream(stream):
            yield r


__all__ = ["Matcher"]
