"""Reading GNU Backgammon's SGF (``GM[6]``) into ``MatchRecord``s.

gnubg saves a match as one game tree per game. The first node holds the match information
(``MI[length:7][game:0][ws:0][bs:1]``: ``game`` counts from 0, ``ws``/``bs`` are White's and Black's scores),
the players (``PW``, ``PB``), the rules (``RU[Crawford]``, ``RU[Jacoby]``) and the result (``RE[W+2]``, a
trailing ``R`` for a resignation). Each later node is one action: ``B[41lpab]`` is Black's roll of 4 and 1
played as the from/to letter pairs ``lp`` and ``ab``, ``W[double]``, ``B[take]``, ``B[drop]``, ``B[beaver]``;
``PL[W]DI[62]`` records dice rolled and not played (gnubg writes it when a player resigns after rolling).
Letters ``a``..``x`` are the points 1..24 counted from White's side, ``y`` the bar and ``z`` off.

Property names are read as the SGF standard writes them, in capitals and case-sensitive (``PW``, not ``pw``;
the lowercase letters that SGF's third version allowed inside a name, ``PlayerWhite``, are dropped, as it
says). White is player 0 (the left column of a Jellyfish file), Black player 1. Comments and the other
properties are ignored; variations are skipped, the main line is read.

gnubg's analysis, where the file holds it, becomes one ``Verdict`` per decision (judge ``gnubg``, its level
the plies of the evaluation, ``2-ply``), as gnubg's own analysis reports it:

- ``A[n][play E ver 3 p1 .. p5 equity context]...`` on a roll's node: the candidate plays, best first, each
  with its cubeful equity (EMG) and evaluation context (``2C``: 2 plies, cubeful), ``n`` the one played;
  the best is the first candidate, the error the first's equity minus the played one's.
- ``DA[E ver 3 context nd1 .. nd7 dt1 .. dt7]`` on a roll's node (the decision not to double before it), a
  double's or an answer's: the doubler's No double and Double/take evaluations, the cubeful one last of
  each, in match winning chances in a match (made EMG at the cube and score of the decision by gnubg's
  ``mwc2eq``, ``cubeful.mwc_to_emg``, with gnubg's default table, Kazaross-XG2), Double/pass being 1 EMG;
  the best action and the error of the one taken as gnubg reckons them. A money session's cube analysis
  is not read (no analysed sample to check its scale on), nor rollouts (``R``).
"""

from __future__ import annotations

import bisect
import math
import re
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace

from taldau.base.records import (
    MAX_ERRORS_PER_GAME,
    ReadLimits,
    RecordError,
    RecordLine,
    append_error,
    excerpt,
)

from ..engine.cubeful import mwc_to_emg
from ..rules.cube import DecisionKind, MatchState, Rules
from .record import BAR, OFF, Action, ActionKind, GameRecord, MatchRecord, Segment, Verdict

FORMAT = "sgf"

COLOURS = {"W": 0, "B": 1}
ROLL = re.compile(r"^(?P<d1>[1-6])(?P<d2>[1-6])(?P<moves>[a-z]*)$")
# Numbers have at most nine digits: no count in a match needs more, and Python refuses to read huge ones.
NUMBER = re.compile(r"\d{1,9}")
RESULT = re.compile(r"^(?P<colour>[WB])\+(?P<points>\d{1,9})(?P<resigned>R?)$")
HEADER_PROPERTIES = {"EV": "Event", "RO": "Round", "PC": "Site", "DT": "EventDate"}
CUBE_WORDS = {
    "double": ActionKind.DOUBLE,
    "take": ActionKind.TAKE,
    "drop": ActionKind.DROP,
    "beaver": ActionKind.BEAVER,
}


CUBE_OFFERS = (ActionKind.DOUBLE, ActionKind.BEAVER)


@dataclass
class Cube:
    """The cube of a game being read: its value, and the offer waiting for an answer."""

    value: int = 1
    offered: int = 0
    offered_by: int | None = None
    beavered: bool = False
    owner: int | None = None

    def answer(self, player: int, kind: ActionKind) -> ActionKind | None:
        """What a cube word of ``player`` is, the cube updated: gnubg writes a beaver as the doubled
        player's ``double`` and then the doubler's ``take`` of it, which is left out (None)."""
        waiting = self.offered_by is not None and self.offered_by != player
        if kind is ActionKind.DOUBLE and waiting:
            kind = ActionKind.BEAVER
        if kind is ActionKind.DOUBLE:
            self.offered, self.offered_by, self.beavered = self.value * 2, player, False
        elif kind is ActionKind.BEAVER:
            self.offered, self.offered_by, self.beavered = max(self.offered, self.value * 2) * 2, player, True
            self.owner = player
        else:
            beaver_taken = kind is ActionKind.TAKE and waiting and self.beavered
            if kind is ActionKind.TAKE and self.offered:
                self.value = self.offered
                self.owner = self.owner if beaver_taken else player
            self.offered, self.offered_by, self.beavered = 0, None, False
            if beaver_taken:
                return None
        return kind


@dataclass(frozen=True)
class Property:
    """One SGF property of a node: its name, its values (unescaped) and where its name starts."""

    name: str
    values: tuple[str, ...]
    offset: int
    end: int


@dataclass
class Tree:
    """A game tree: where it opens and the nodes of its main line."""

    offset: int
    nodes: list[list[Property]] = field(default_factory=list)
    cut: bool = False  # it had more nodes than the limit: the rest of its main line is not kept


@dataclass
class SgfSyntax:
    """The result of tokenizing: game trees (main lines only) and syntax problems (offset, message)."""

    trees: list[Tree] = field(default_factory=list)
    problems: list[tuple[int, str]] = field(default_factory=list)


def parse_sgf(text: str, limits: ReadLimits | None = None) -> SgfSyntax:
    """The game trees of an SGF collection, following the first variation at every branch. A tree keeps at
    most twice ``limits.max_plies`` nodes; a property value longer than ``limits.max_token_chars`` is refused.
    """
    result = SgfSyntax()
    result.trees.extend(iter_trees(text, limits or ReadLimits(), result.problems))
    return result


def iter_trees(text: str, limits: ReadLimits, problems: list[tuple[int, str]]) -> Iterator[Tree]:
    """The game trees of ``parse_sgf``, each yielded when it closes; syntax problems go to ``problems`` (at
    most one more than a game lists)."""
    max_nodes = 2 * limits.max_plies

    def problem(offset: int, message: str) -> None:
        if len(problems) <= MAX_ERRORS_PER_GAME:
            problems.append((offset, message))

    length = len(text)
    on_main: list[bool] = []  # per open parenthesis: whether it lies on the main line
    child_taken: list[bool] = []  # per open parenthesis: whether its main variation has been entered
    tree: Tree | None = None
    node: list[Property] | None = None
    index = 0
    while index < length:
        char = text[index]
        if char.isspace():
            index += 1
        elif char == "(":
            if not on_main:
                tree = Tree(index)
                on_main.append(True)
            else:
                on_main.append(on_main[-1] and not child_taken[-1])
                child_taken[-1] = True
            child_taken.append(False)
            node = None
            index += 1
        elif char == ")":
            if not on_main:
                problem(index, "')' with no game tree open")
            else:
                on_main.pop()
                child_taken.pop()
                if not on_main and tree is not None:
                    yield tree
                    tree = None
            node = None
            index += 1
        elif char == ";":
            if not on_main:
                problem(index, "a node outside any game tree")
                node = []
            else:
                node = []
                if on_main[-1] and tree is not None and not child_taken[-1]:
                    if len(tree.nodes) < max_nodes:
                        tree.nodes.append(node)
                    else:
                        tree.cut = True
            index += 1
        elif char.isalpha():
            start = index
            while index < length and text[index].isalpha():
                index += 1
            name = "".join(letter for letter in text[start:index] if letter.isupper())
            values: list[str] = []
            while True:
                while index < length and text[index].isspace():
                    index += 1
                if index >= length or text[index] != "[":
                    break
                value, index, closed = _value(text, index + 1, limits.max_token_chars)
                if not closed:
                    problem(start, f"property {name} has an unterminated value")
                    break
                if value is None:
                    limit = f"the limit of {limits.max_token_chars:,} characters"
                    problem(start, f"property {name} has a value longer than {limit}")
                    continue
                values.append(value)
            if not values:
                problem(start, f"property {excerpt(name or text[start:index])} has no value")
            elif node is None:
                problem(start, f"property {name} outside a node")
            else:
                node.append(Property(name, tuple(values), start, index))
        else:
            problem(index, f"unexpected {char!r}")
            index += 1
    if on_main:
        problem(length, "the game tree is not closed (missing ')')")
        if tree is not None:
            yield tree


_VALUE = re.compile(r"(?:[^\\\]]|\\.)*", re.DOTALL)  # up to the closing ], escapes included
_ESCAPE = re.compile(r"\\(.)", re.DOTALL)


def _value(text: str, index: int, max_chars: int) -> tuple[str | None, int, bool]:
    """A property value starting after its ``[``: the unescaped text (None when longer than ``max_chars``),
    the index after ``]``, whether it was closed."""
    match = _VALUE.match(text, index)
    assert match is not None  # the pattern matches the empty string
    end = match.end()
    closed = end < len(text) and text[end] == "]"
    after = end + 1 if closed else len(text)
    if end - index > 2 * max_chars:  # an escape is two characters: the value is too long for sure
        return None, after, closed
    value = _ESCAPE.sub(lambda escape: "" if escape[1] == "\n" else escape[1], match.group())
    return (None if len(value) > max_chars else value), after, closed


def _simple_text(value: str) -> str:
    """A value of SGF's SimpleText type (names, event, place, date): every whitespace character but the
    space (a line break among them) becomes a space, as the SGF specification says, and the blanks around
    the text are dropped."""
    return re.sub(r"\s", " ", value).strip()


def _point(letter: str, player: int) -> int:
    """The point a move letter stands for, from the mover's own side (``BAR`` for y, ``OFF`` for z)."""
    if letter == "y":
        return BAR
    if letter == "z":
        return OFF
    index = ord(letter) - ord("a")
    return index + 1 if player == 0 else 24 - index


class SgfReader:
    """Turns the game trees of one text into matches; each problem becomes a ``RecordError``. A game keeps at
    most ``limits.max_plies`` actions."""

    def __init__(self, text: str, source: str, limits: ReadLimits) -> None:
        self.text = text
        self.source = source
        self.limits = limits
        self.line_starts = [0] + [match.end() for match in re.finditer(r"\n", text)]

    def where(self, offset: int) -> tuple[int, int]:
        """The 1-based line and column of an offset."""
        line = bisect.bisect_right(self.line_starts, offset)
        return line, offset - self.line_starts[line - 1] + 1

    def read(self, refused: Iterable[RecordLine] = ()) -> Iterator[MatchRecord]:
        """All matches of the text (at least one, holding an error when the text has none), each yielded
        as soon as the next one begins. Each ``refused`` line (read as empty) is an error of the game whose
        tree it falls in (of the first match when it comes before any tree)."""
        problems: list[tuple[int, str]] = []
        pending = deque(sorted(refused))  # refused lines not placed yet
        match: MatchRecord | None = None
        game: GameRecord | None = None  # the game of the last tree read
        last_index = -1
        for tree in iter_trees(self.text, self.limits, problems):
            before = self.refused_before(pending, tree.offset)
            if game is not None:
                for number, reason in before:
                    game.add_error(number, 1, reason)
            info = self.root_info(tree)
            game_index = info.get("game", last_index + 1)
            if match is None or game_index <= last_index:
                if match is not None:
                    yield match
                match = MatchRecord(self.source, FORMAT)
            if game is None:
                for number, reason in before:
                    append_error(match.errors, number, 1, reason)
            last_index = game_index
            game = self.read_tree(match, tree)
        rest = self.refused_before(pending, len(self.text) + 1)
        if match is None:
            match = MatchRecord(self.source, FORMAT)
            if not problems and not rest:
                match.errors.append(RecordError(0, 0, "no game tree in this SGF"))
        for offset, message in problems:
            line, column = self.where(offset)
            append_error(match.errors, line, column, f"SGF syntax: {message}")
        for number, reason in rest:
            append_error(match.errors if game is None else game.errors, number, 1, reason)
        yield match

    def refused_before(self, pending: deque[RecordLine], offset: int) -> list[tuple[int, str]]:
        """The refused lines (number, reason) that start before ``offset``, taken from ``pending``."""
        taken: list[tuple[int, str]] = []
        while pending and self.line_starts[pending[0].number - 1] < offset:
            line = pending.popleft()
            taken.append((line.number, str(line.refused)))
        return taken

    def root_info(self, tree: Tree) -> dict[str, int]:
        """The numbers of a tree's ``MI`` property (``length``, ``game``, ``ws``, ``bs``...)."""
        info: dict[str, int] = {}
        for prop in tree.nodes[0] if tree.nodes else []:
            if prop.name == "MI":
                for value in prop.values:
                    key, _, number = value.partition(":")
                    if NUMBER.fullmatch(number := number.strip()):
                        info[key.strip()] = int(number)
        return info

    def read_tree(self, match: MatchRecord, tree: Tree) -> GameRecord:
        """Reads one game tree into a game of ``match``."""
        info = self.root_info(tree)
        line, _ = self.where(tree.offset)
        game = GameRecord(index=info.get("game", len(match.games)) + 1, line=line)
        match.games.append(game)
        if "ws" in info and "bs" in info:
            game.score = (info["ws"], info["bs"])
        self.read_root(match, game, tree.nodes[0] if tree.nodes else [], info)
        cube = Cube()
        unplayed: Action | None = None  # dice rolled in a PL[..]DI[..] node, not played (yet)
        count = 0
        cut_at = (line, 1) if tree.cut else None  # where the game was cut at the limit of actions
        for node in tree.nodes:
            if len(game.actions) >= self.limits.max_plies:
                cut_at = self.where(node[0].offset) if node else (line, 1)
                break
            names = {prop.name: prop for prop in node}
            if "DI" in names and "PL" in names:
                unplayed = self.set_dice(game, names["PL"], names["DI"])
            if "CV" in names and NUMBER.fullmatch(names["CV"].values[0]):
                cube.value = int(names["CV"].values[0])
            for prop in (prop for prop in node if prop.name in COLOURS):
                count += 1
                state = _state(match, game, cube)
                action = self.action(game, prop, f"move {count}: ", cube)
                if action is None:
                    continue
                action = replace(action, verdicts=_verdicts(names, action, state))
                if unplayed is not None and not _plays(action, unplayed):
                    game.actions.append(unplayed)
                unplayed = None
                game.actions.append(action)
        if unplayed is not None:
            game.actions.append(unplayed)
        if cut_at is not None:
            game.add_error(*cut_at, self.limits.game_cut)
        if game.winner is not None and match.length and game.score is not None and game.points is not None:
            game.match_won = game.score[game.winner] + game.points >= match.length
        return game

    def read_root(
        self, match: MatchRecord, game: GameRecord, root: list[Property], info: dict[str, int]
    ) -> None:
        """The match information, players, rules and result of a game tree's first node."""
        if "length" in info:
            match.length = info["length"]
        names = {prop.name: prop for prop in root}
        players = list(match.players)
        for colour, key in (("W", "Player 1"), ("B", "Player 2")):
            prop = names.get("P" + colour)
            if prop is not None:
                players[COLOURS[colour]] = match.headers[key] = _simple_text(prop.values[0])
        match.players = (players[0], players[1])
        for name, key in HEADER_PROPERTIES.items():
            if name in names:
                value = _simple_text(names[name].values[0])
                match.headers[key] = value.replace("-", ".") if name == "DT" else value
        if not match.games[:-1]:
            rules = names["RU"].values[0].split(":") if "RU" in names else []
            match.headers["Crawford"] = "On" if "Crawford" in rules else "Off"
            match.headers["Jacoby"] = "On" if "Jacoby" in rules else "Off"
        if "RE" in names:
            prop = names["RE"]
            result = RESULT.match(prop.values[0].strip())
            if result is None:
                line, column = self.where(prop.offset)
                game.warnings.append(RecordError(line, column, f"result RE[{prop.values[0]}] not understood"))
            else:
                game.winner = COLOURS[result["colour"]]
                game.points = int(result["points"])
                game.result_line = self.where(prop.offset)[0]

    def set_dice(self, game: GameRecord, player: Property, dice: Property) -> Action | None:
        """The roll of a ``PL[W]DI[62]`` node: dice rolled, not (yet) played."""
        line, column = self.where(dice.offset)
        colour = player.values[0].strip()
        value = dice.values[0].strip()
        if colour not in COLOURS or not re.fullmatch(r"[1-6]{2}", value):
            game.add_error(line, column, f"bad dice node PL[{colour}]DI[{value}]")
            return None
        text = (
            self.text[player.offset : dice.end]
            if player.offset < dice.offset
            else self.text[dice.offset : dice.end]
        )
        return Action(
            COLOURS[colour], ActionKind.ROLL, line, column, 0, (int(value[0]), int(value[1])), (), 0, text
        )

    def action(self, game: GameRecord, prop: Property, where: str, cube: Cube) -> Action | None:
        """The action of a ``B[...]`` or ``W[...]`` property; None when it is unreadable (with an error) or
        when it is the take that gnubg writes after a beaver (the beaver implies it)."""
        player = COLOURS[prop.name]
        line, column = self.where(prop.offset)
        text = self.text[prop.offset : prop.end]
        value = prop.values[0].strip()
        kind = CUBE_WORDS.get(value.lower())
        if kind is not None:
            kind = cube.answer(player, kind)
            if kind is None:
                return None
            return Action(
                player, kind, line, column, 0, value=cube.offered if kind in CUBE_OFFERS else 0, text=text
            )
        cube.offered_by = None
        roll = ROLL.match(value)
        if roll is None:
            game.add_error(line, column, f"{where}{excerpt(text)} is neither a roll nor a cube action")
            return None
        letters = roll["moves"]
        if len(letters) % 2 or len(letters) > 8:
            game.add_error(line, column, f"{where}{excerpt(text)}: the moves are not from/to letter pairs")
            return None
        segments: list[Segment] = []
        for pair in range(0, len(letters), 2):
            start, end = letters[pair], letters[pair + 1]
            if start == "z" or end == "y":
                message = f"{where}{excerpt(text)}: {start}{end} moves from off or to the bar"
                game.add_error(line, column, message)
                return None
            segments.append(Segment(_point(start, player), _point(end, player)))
        dice = (int(roll["d1"]), int(roll["d2"]))
        return Action(player, ActionKind.ROLL, line, column, 0, dice, tuple(segments), 0, text)


JUDGE = "gnubg"
CONTEXT = re.compile(r"(\d{1,2})C?")  # an evaluation context's plies, cubeful or not


def _state(match: MatchRecord, game: GameRecord, cube: Cube) -> MatchState | None:
    """The match state of a cube decision made now, as far as gnubg's cube analysis needs it (the score,
    the cube and its owner: a Crawford game has no cube decision); None in money play or without a score."""
    if not match.length or game.score is None or max(game.score) >= match.length:
        return None
    rules = Rules(length=match.length, crawford=match.crawford, jacoby=False, beavers=False)
    return MatchState(rules, game.score, cube=cube.value, cube_owner=cube.owner)


def _verdicts(names: dict[str, Property], action: Action, state: MatchState | None) -> tuple[Verdict, ...]:
    """gnubg's verdicts on the decisions ``action`` made, from its node's ``DA`` and ``A`` (see the module's
    words); none where the node holds none or what it holds is not read."""
    found: list[Verdict] = []
    if "DA" in names and state is not None:
        doubler = action.player if action.kind in (ActionKind.ROLL, ActionKind.DOUBLE) else 1 - action.player
        cube = _cube_verdict(names["DA"].values[0], action.kind, state, doubler)
        if cube is not None:
            found.append(cube)
    if "A" in names and action.kind is ActionKind.ROLL:
        play = _play_verdict(names["A"].values, action.player)
        if play is not None:
            found.append(play)
    return tuple(found)


def _cube_verdict(value: str, kind: ActionKind, state: MatchState, doubler: int) -> Verdict | None:
    """gnubg's verdict from a ``DA`` value on the cube decision an action of ``kind`` made (a roll: not
    doubling; a double; an answer) in ``state``, ``doubler`` the player who doubled or might have."""
    tokens = value.split()
    if len(tokens) < 18 or tokens[:2] != ["E", "ver"] or not CONTEXT.fullmatch(tokens[3]):
        return None
    try:
        numbers = [float(token) for token in tokens[-14:]]
    except ValueError:
        return None
    if not all(math.isfinite(number) for number in numbers):
        return None
    no_double, double_take = (mwc_to_emg(mwc, state, doubler) for mwc in (numbers[6], numbers[13]))
    level = f"{CONTEXT.fullmatch(tokens[3])[1]}-ply"  # type: ignore[index]
    double_pass = 1.0
    equities = (no_double, double_take, double_pass)
    doubled = min(double_take, double_pass)
    optimal = max(no_double, doubled)
    if kind is ActionKind.ROLL or kind is ActionKind.DOUBLE:
        best = "double" if doubled > no_double else "no double"
        loss = optimal - (no_double if kind is ActionKind.ROLL else doubled)
        return Verdict(JUDGE, level, DecisionKind.CUBE, best, max(0.0, loss), equities)
    best = "take" if double_take <= double_pass else "pass"
    loss = double_pass - double_take if kind is ActionKind.DROP else double_take - double_pass
    return Verdict(JUDGE, level, DecisionKind.TAKE, best, max(0.0, loss), equities)


def _play_verdict(values: Sequence[str], player: int) -> Verdict | None:
    """gnubg's verdict from the values of an ``A`` property on ``player``'s play: the first candidate the
    best, the error the first's equity minus the played one's (``values[0]`` its index)."""
    if not values or not NUMBER.fullmatch(values[0].strip()):
        return None
    candidates = [value.split() for value in values[1:]]
    played = int(values[0].strip())
    if not 0 <= played < len(candidates):
        return None
    equities: list[float] = []
    for tokens in (candidates[0], candidates[played]):
        at = tokens.index("E") if "E" in tokens else -1
        if at not in (0, 1) or len(tokens) < at + 11 or tokens[at + 1] != "ver":
            return None
        try:
            equities.append(float(tokens[at + 8]))
        except ValueError:
            return None
    if not all(math.isfinite(equity) for equity in equities):
        return None
    best = candidates[0]
    letters = best[0] if best[0] != "E" else ""
    context = CONTEXT.fullmatch(best[(1 if letters else 0) + 9])
    if context is None or len(letters) % 2 or not re.fullmatch(r"[a-z]*", letters):
        return None
    moves = [
        f"{_point_name(_point(letters[at], player))}/{_point_name(_point(letters[at + 1], player))}"
        for at in range(0, len(letters), 2)
    ]
    loss = max(0.0, equities[0] - equities[1])
    return Verdict(JUDGE, f"{context[1]}-ply", DecisionKind.MOVE, " ".join(moves), loss)


def _point_name(point: int) -> str:
    return "bar" if point == BAR else "off" if point == OFF else str(point)


def _plays(action: Action, unplayed: Action) -> bool:
    """Whether ``action`` is the play of the dice a set-dice node recorded."""
    same_dice = sorted(action.dice or ()) == sorted(unplayed.dice or ())
    return action.kind is ActionKind.ROLL and action.player == unplayed.player and same_dice


def read_sgf(text: str, source: str, limits: ReadLimits | None = None) -> list[MatchRecord]:
    """The matches of a gnubg SGF text (normally one; at least one, with an error when the text holds
    none)."""
    return list(SgfReader(text, source, limits or ReadLimits()).read())


def read_sgf_lines(lines: Iterable[RecordLine], source: str, limits: ReadLimits) -> Iterator[MatchRecord]:
    """The matches of a gnubg SGF file's lines, one at a time; a refused line (too long) reads as empty and
    is an error of the game it falls in. SGF is a tree, not a list of lines: the text is held whole, its
    game trees are read one at a time."""
    texts: list[str] = []
    refused: list[RecordLine] = []
    for line in lines:
        if line.refused is not None:
            refused.append(line)
        texts.append("" if line.refused is not None else line.text)
    return SgfReader("\n".join(texts), source, limits).read(refused)
