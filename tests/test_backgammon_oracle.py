"""The backgammon play generator against OpenSpiel's backgammon, an independent implementation of the rules.

For each position and roll, ``board.generate_plays`` must give exactly the set of resulting boards that
OpenSpiel reaches by playing out every legal action sequence of the turn. The positions come from random
OpenSpiel games with a fixed seed; besides the roll each turn gets, every roll of those positions that
cannot be played in full (blocked, one die only, part of a double) is compared too, since random rolls
rarely reach the rule that the higher die must be played.

How OpenSpiel's board is read: ``state.board(player, position)`` counts the player's checkers on the
absolute position 0..23. Player 0 moves from position 0 towards 23, so its point p (counted from its own
home board) is position 24 - p; player 1 moves the other way, its point p is position p - 1. The bar and
the borne-off tray are not positions: ``observation_tensor(player)`` holds, after 2 x 24 x 4 units for
the points, (bar, borne off, on turn) for ``player``, the same three for the opponent, then the two dice.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="OpenSpiel (PyPI package open-spiel) is the oracle here")

from taldau.games.backgammon import ROLLS  # noqa: E402
from taldau.games.backgammon.rules import board  # noqa: E402

SEED = 20240611
TURNS = 10_000
MISMATCHES_SHOWN = 5

# observation_tensor(player)[192:198]: the player's bar, borne off and turn flag, then the opponent's three
TENSOR_BAR = 192
TENSOR_OFF = 193
TENSOR_OPPONENT = 3
TENSOR_DICE = 198

Key = bytes  # a resulting board: the bytes of its int8 (2, 25) array
Moves = list[list[int]]  # our single moves of one play, (from, to) pairs
Actions = tuple[int, ...]  # OpenSpiel's actions of one turn


@dataclass
class Buffers:
    """The working arrays ``generate_plays`` fills, allocated once per test."""

    boards: np.ndarray = field(default_factory=lambda: np.empty((board.MAX_PLAYS, 2, board.ROW), np.int8))
    moves: np.ndarray = field(default_factory=lambda: np.empty((board.MAX_PLAYS, 4, 2), np.int8))
    lengths: np.ndarray = field(default_factory=lambda: np.empty(board.MAX_PLAYS, np.int8))
    keys: np.ndarray = field(default_factory=lambda: np.empty(board.MAX_PLAYS, np.uint64))
    slots: np.ndarray = field(default_factory=lambda: np.empty(board.MAX_PLAYS, np.int64))
    table: np.ndarray = field(default_factory=lambda: np.full(board.TABLE_SIZE, -1, np.int64))


# --- our side -------------------------------------------------------------------------------------------


def generate(position: np.ndarray, die1: int, die2: int, buffers: Buffers) -> int:
    """Run ``board.generate_plays`` into ``buffers``; returns the number of plays."""
    return board.generate_plays(
        position, die1, die2, board.KEY_WORDS, buffers.boards, buffers.moves, buffers.lengths,
        buffers.keys, buffers.slots, buffers.table,
    )  # fmt: skip


def our_plays(position: np.ndarray, die1: int, die2: int, buffers: Buffers) -> dict[Key, Moves]:
    """Our plays of the roll: each distinct resulting board mapped to the single moves reaching it."""
    count = generate(position, die1, die2, buffers)
    return {
        buffers.boards[k].tobytes(): buffers.moves[k, : buffers.lengths[k]].tolist() for k in range(count)
    }


def plays_in_full(position: np.ndarray, die1: int, die2: int, buffers: Buffers) -> bool:
    """Whether our plays of the roll use every die (both, or four moves of a double)."""
    count = generate(position, die1, die2, buffers)
    return int(buffers.lengths[:count].max()) == (4 if die1 == die2 else 2)


def describe_moves(moves: Moves) -> str:
    """Single moves in the usual notation from the mover's side (bar = 25, off = 0), e.g. ``25/22 13/8``."""
    if not moves:
        return "(no move)"
    return " ".join(f"{start + 1}/{0 if end == board.OFF else end + 1}" for start, end in moves)


def can_move(position: np.ndarray, die: int) -> bool:
    """Whether some checker of the side on roll can be moved by ``die`` alone."""
    return any(board.destination(position, start, die) != board.ILLEGAL for start in range(board.ROW))


# --- OpenSpiel's side -----------------------------------------------------------------------------------


def openspiel_position(player: int, index: int) -> int:
    """OpenSpiel's absolute position of ``player``'s point ``index + 1`` (counted from its own home)."""
    return board.POINTS - 1 - index if player == 0 else index


def read_order(mover: int) -> tuple[list[int], list[int]]:
    """The OpenSpiel players and positions read into the 2 x 24 points of our board seen by ``mover``."""
    cells = [
        (player, openspiel_position(player, index)) for player in (1 - mover, mover) for index in range(24)
    ]
    return [player for player, _ in cells], [position for _, position in cells]


READ_ORDER = {mover: read_order(mover) for mover in (0, 1)}


def board_bytes(state: pyspiel.State, mover: int) -> Key:
    """OpenSpiel's position as the bytes of our board seen by ``mover`` (row 1 = ``mover``); run on every
    result OpenSpiel reaches, so it builds the bytes directly."""
    players, positions = READ_ORDER[mover]
    cells = list(map(state.board, players, positions))
    tensor = state.observation_tensor(mover)
    cells.insert(board.POINTS, int(tensor[TENSOR_BAR + TENSOR_OPPONENT]))  # the bar closes row 0 ...
    cells.append(int(tensor[TENSOR_BAR]))  # ... and row 1
    return bytes(cells)


def to_board(state: pyspiel.State, mover: int) -> np.ndarray:
    """OpenSpiel's position as our board seen by ``mover``, checking that every checker is accounted for."""
    result = np.frombuffer(board_bytes(state, mover), np.int8).reshape(2, board.ROW).copy()
    tensor = state.observation_tensor(mover)
    for row, borne_off in (
        (board.MOVER, tensor[TENSOR_OFF]),
        (board.OPPONENT, tensor[TENSOR_OFF + TENSOR_OPPONENT]),
    ):
        assert result[row].sum() + borne_off == board.CHECKERS, f"checkers lost reading row {row}:\n{result}"
    return result


def dice_of(state: pyspiel.State) -> tuple[int, int]:
    """The two dice of the player on roll."""
    tensor = state.observation_tensor(state.current_player())
    return int(tensor[TENSOR_DICE]), int(tensor[TENSOR_DICE + 1])


@cache
def roll_outcomes() -> dict[tuple[int, int], int]:
    """OpenSpiel's chance outcome for each of the 21 rolls (higher die first), read off an ordinary roll."""
    state = pyspiel.load_game("backgammon").new_initial_state()
    state.apply_action(state.chance_outcomes()[0][0])
    state.apply_action(state.legal_actions()[0])  # any opening play, to reach an ordinary chance node
    outcomes = {}
    for outcome, _ in state.chance_outcomes():
        high, low = sorted(dice_of(state.child(outcome)), reverse=True)
        outcomes.setdefault((high, low), outcome)
    assert sorted(outcomes) == sorted(ROLLS)
    return outcomes


def openspiel_plays(state: pyspiel.State) -> dict[Key, Actions]:
    """Every board OpenSpiel reaches by the end of the turn starting at ``state`` (a player node), seen by
    the player on roll, each mapped to one action sequence reaching it.

    A double is two actions by the same player, so sequences are followed until the turn passes (a chance
    node, or the end of the game). States are memoised by OpenSpiel's text of them, which identifies a state:
    it shows every count (a stack above five in digits), the bars, the trays, the dice, whose turn it is
    and whether the second half of a double is due. Many first halves of a double reach the same state, and
    many sequences the same result.
    """
    mover = state.current_player()
    inner: dict[str, dict[Key, Actions]] = {}
    final: dict[str, Key] = {}

    def result_of(current: pyspiel.State) -> Key:
        text = str(current)
        if text not in final:
            final[text] = board_bytes(current, mover)
        return final[text]

    def finish(current: pyspiel.State) -> dict[Key, Actions]:
        text = str(current)
        if text not in inner:
            results: dict[Key, Actions] = {}
            for action in current.legal_actions():
                child = current.child(action)
                if child.is_terminal() or child.current_player() != mover:
                    results.setdefault(result_of(child), (action,))
                    continue
                for result, rest in finish(child).items():
                    results.setdefault(result, (action, *rest))
            inner[text] = results
        return inner[text]

    return finish(state)


def describe_actions(state: pyspiel.State, actions: Actions) -> str:
    """OpenSpiel's own text of an action sequence played from ``state``, e.g. ``24/23 24/22 | 13/11``."""
    texts = []
    current = state.clone()
    for action in actions:
        texts.append(current.action_to_string(action).split(" - ", 1)[-1])
        current.apply_action(action)
    return " | ".join(texts)


def random_turns(seed: int, turns: int) -> Iterator[tuple[pyspiel.State, pyspiel.State]]:
    """``turns`` turns of random OpenSpiel games (random rolls, random plays), each as the chance node
    that rolls for it and the player node where the turn starts."""
    game = pyspiel.load_game("backgammon")
    rng = random.Random(seed)
    produced = 0
    while True:
        state = game.new_initial_state()
        while not state.is_terminal():
            outcomes, weights = zip(*state.chance_outcomes(), strict=True)
            roll_node = state.clone()
            state.apply_action(rng.choices(outcomes, weights)[0])
            yield roll_node, state
            produced += 1
            if produced == turns:
                return
            while state.is_player_node():  # one action, or two for a double
                state.apply_action(rng.choice(state.legal_actions()))


def short_rolls(roll_node: pyspiel.State, buffers: Buffers) -> Iterator[pyspiel.State]:
    """Every roll at ``roll_node`` (not the opening) whose dice our generator cannot all play, as the player
    node OpenSpiel reaches with it (rolls wrongly found playable in full are the other test's business)."""
    outcomes = roll_outcomes()
    some_roll = roll_node.child(outcomes[6, 5])
    position = to_board(some_roll, some_roll.current_player())
    for die1, die2 in ROLLS:
        if not plays_in_full(position, die1, die2, buffers):
            yield roll_node.child(outcomes[die1, die2])


# --- comparing --------------------------------------------------------------------------------------------


@dataclass
class Coverage:
    """How many compared turns fall in each kind worth covering."""

    turns: int = 0
    bar: int = 0  # the mover has a checker on the bar
    bear_off: int = 0  # all the mover's checkers are home (or borne off)
    doubles: int = 0
    no_move: int = 0  # the roll cannot be played at all
    one_die: int = 0  # not a double, and only one of the dice can be played
    higher_die_forced: int = 0  # ... though either could be played alone, with two or more checkers left
    partial_double: int = 0  # a double of which only one to three moves can be played

    def add(self, position: np.ndarray, dice: tuple[int, int], plays: dict[Key, Moves]) -> None:
        """Count one compared turn."""
        longest = max(len(moves) for moves in plays.values())
        self.turns += 1
        self.bar += bool(position[board.MOVER, board.BAR])
        self.bear_off += not position[board.MOVER, 6:].any()
        self.doubles += dice[0] == dice[1]
        self.no_move += longest == 0
        if dice[0] != dice[1] and longest == 1:
            self.one_die += 1
            either = can_move(position, dice[0]) and can_move(position, dice[1])
            self.higher_die_forced += bool(either and position[board.MOVER].sum() > 1)
        self.partial_double += dice[0] == dice[1] and 0 < longest < 4


def mismatch(
    state: pyspiel.State,
    position: np.ndarray,
    dice: tuple[int, int],
    ours: dict[Key, Moves],
    theirs: dict[Key, Actions],
) -> str:
    """A readable account of a turn where the two sets of results differ."""
    lines = [
        f"dice {dice[0]}-{dice[1]}, board (index i = point i + 1 of that row's own side, index 24 = bar):",
        f"  side not on roll: {position[board.OPPONENT].tolist()}",
        f"  side on roll:     {position[board.MOVER].tolist()}",
        f"  ours {len(ours)} plays, OpenSpiel's {len(theirs)}",
    ]
    for result in ours.keys() - theirs.keys():
        after = np.frombuffer(result, np.int8).reshape(2, board.ROW).tolist()
        lines.append(f"  only ours:      {describe_moves(ours[result])} -> {after}")
    for result in theirs.keys() - ours.keys():
        after = np.frombuffer(result, np.int8).reshape(2, board.ROW).tolist()
        lines.append(f"  only OpenSpiel: {describe_actions(state, theirs[result])} -> {after}")
    return "\n".join(lines)


def compare_turns(states: Iterator[pyspiel.State]) -> Coverage:
    """Compare our plays with OpenSpiel's at each turn; fails naming the turns that differ."""
    buffers = Buffers()
    coverage = Coverage()
    mismatches: list[str] = []
    for state in states:
        position = to_board(state, state.current_player())
        dice = dice_of(state)
        ours = our_plays(position, *dice, buffers)
        theirs = openspiel_plays(state)
        coverage.add(position, dice, ours)
        if ours.keys() != theirs.keys():
            mismatches.append(mismatch(state, position, dice, ours, theirs))
    shown = "\n\n".join(mismatches[:MISMATCHES_SHOWN])
    assert not mismatches, f"{len(mismatches)} of {coverage.turns} turns differ, e.g.:\n{shown}"
    return coverage


@pytest.mark.slow
def test_plays_match_openspiel_on_random_turns() -> None:
    coverage = compare_turns(state for _, state in random_turns(SEED, TURNS))
    assert coverage.turns == TURNS
    assert coverage.bar >= 1_000, coverage
    assert coverage.bear_off >= 300, coverage
    assert coverage.doubles >= 1_000, coverage
    assert coverage.no_move >= 100, coverage
    assert coverage.one_die >= 100, coverage


@pytest.mark.slow
def test_rolls_not_played_in_full_match_openspiel() -> None:
    buffers = Buffers()
    turns = random_turns(SEED, TURNS)
    coverage = compare_turns(
        state
        for roll_node, _ in turns
        if not roll_node.is_initial_state()
        for state in short_rolls(roll_node, buffers)
    )
    assert coverage.no_move >= 5_000, coverage
    assert coverage.one_die >= 3_000, coverage
    assert coverage.higher_die_forced >= 50, coverage
    assert coverage.partial_double >= 700, coverage


# --- the starting position ------------------------------------------------------------------------------

# Distinct plays (resulting boards) of each roll from the starting position, as OpenSpiel gives them.
START_PLAYS = {
    "11": 42, "21": 15, "22": 75, "31": 16, "32": 17, "33": 73, "41": 14, "42": 18, "43": 17, "44": 52,
    "51": 8, "52": 8, "53": 9, "54": 9, "55": 4, "61": 10, "62": 14, "63": 14, "64": 14, "65": 7, "66": 11,
}  # fmt: skip


def openspiel_start(die1: int, die2: int) -> pyspiel.State:
    """OpenSpiel's starting position with ``die1``-``die2`` (higher first) to play.

    OpenSpiel's opening chance node offers only the 15 non-double rolls (and who starts). For a double this
    applies the outcome its later chance nodes use for that double; OpenSpiel then gives the starting
    position with that double on roll, which the caller checks.
    """
    return pyspiel.load_game("backgammon").new_initial_state().child(roll_outcomes()[die1, die2])


@pytest.mark.parametrize(("roll", "plays"), sorted(START_PLAYS.items()))
def test_start_position_play_counts(roll: str, plays: int) -> None:
    die1, die2 = int(roll[0]), int(roll[1])
    state = openspiel_start(die1, die2)
    position = to_board(state, state.current_player())
    assert sorted(dice_of(state)) == sorted((die1, die2))
    assert np.array_equal(position, board.start_board())
    assert len(openspiel_plays(state)) == plays
    assert len(our_plays(position, die1, die2, Buffers())) == plays
