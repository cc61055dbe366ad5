"""The SVG board diagrams (``GameKind.svg``) and the evaluation graph, read back with xml.etree: what they
draw is counted and compared with the position they were drawn from."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
from click.testing import CliRunner
from helpers import make_move_row
from taldau.analysis.report.graph import evaluation_graph
from taldau.cli.main import main
from taldau.games.backgammon.rules.ids import MatchId, position_id
from taldau.games.registry import game_kind
from taldau.games.togyz import START_FEN, Position
from taldau.schemas import MoveRow

SVG = "{http://www.w3.org/2000/svg}"
# White's pit 3 holds 12 stones and pit 4 holds 6; White's tuzdyk is Black's pit 3; kazans 13 and 4.
TUZDYK_FEN = "10S,9S,9S,9S,9S,9S,t,9S,9S/9S,1,12S,6S,9S,9S,9S,9S,9S 13 4 N 5"


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    return root


def pit(root: ET.Element, side: str, number: int) -> ET.Element:
    (found,) = [
        g for g in root.iter(f"{SVG}g") if g.get("data-side") == side and g.get("data-pit") == str(number)
    ]
    return found


def stones(group: ET.Element) -> int:
    return sum(1 for circle in group.iter(f"{SVG}circle") if circle.get("class") == "stone")


def texts(element: ET.Element) -> list[str]:
    return [node.text or "" for node in element.iter(f"{SVG}text")]


def test_a_pit_with_12_stones_shows_12_stones_and_the_number_12() -> None:
    root = parse(game_kind("togyz").svg(TUZDYK_FEN))
    full = pit(root, "white", 3)
    assert stones(full) == 12 and "12" in texts(full)
    assert stones(pit(root, "white", 4)) == 6 and stones(pit(root, "white", 2)) == 0


def test_every_stone_of_the_board_is_drawn_and_the_kazans_and_tuzdyk_are_shown() -> None:
    position = Position.from_fen(TUZDYK_FEN)
    root = parse(game_kind("togyz").svg(TUZDYK_FEN))
    drawn = sum(stones(pit(root, side, number)) for side in ("white", "black") for number in range(1, 10))
    assert drawn == position.stones_on_board() == 162 - 13 - 4
    kazans = {g.get("data-side"): g for g in root.iter(f"{SVG}g") if g.get("class") == "kazan"}
    assert "White's kazan: 13" in texts(kazans["white"]) and "Black's kazan: 4" in texts(kazans["black"])
    tuzdyk = pit(root, "black", 3)  # White's tuzdyk: crossed, no stones, says whose it is
    assert stones(tuzdyk) == 0 and any(p.get("class") == "tuzdyk" for p in tuzdyk.iter(f"{SVG}path"))
    assert "White's" in texts(tuzdyk)


def arrows(root: ET.Element, kind: str) -> list[ET.Element]:
    return [g for g in root.iter(f"{SVG}g") if g.get("class") == f"arrow {kind}"]


def test_the_played_and_the_best_move_are_drawn_from_their_origin_pits() -> None:
    # Black to move: pit 9 (10 stones) sows its last stone into White's pit 9; pit 1 (9 stones) into
    # Black's own pit 9.
    root = parse(game_kind("togyz").svg(TUZDYK_FEN, played="99", best="19"))
    assert len(arrows(root, "played")) == 1 and len(arrows(root, "best")) == 1
    outlined = {
        (g.get("data-side"), g.get("data-pit")): g.find(f"{SVG}rect").get("stroke")
        for g in root.iter(f"{SVG}g")
        if g.get("data-pit")
    }
    assert outlined[("black", "9")] == "#c62828" and outlined[("black", "1")] == "#2e7d32"
    # One arrow when the move played is the best one; none for a move that is not legal here.
    same = parse(game_kind("togyz").svg(START_FEN, played="76", best="76"))
    assert len(arrows(same, "played")) == 1 and not arrows(same, "best")
    assert not arrows(parse(game_kind("togyz").svg(TUZDYK_FEN, played="39")), "played")  # a tuzdyk


def checkers(root: ET.Element) -> dict[str, dict[str, int]]:
    """Checkers drawn per player: on the points and the bar (circles), borne off (the tray's bars)."""
    counts: dict[str, dict[str, int]] = {"0": {"board": 0, "off": 0}, "1": {"board": 0, "off": 0}}
    for node in root.iter():
        classes = (node.get("class") or "").split()
        if "checker" in classes:
            counts[node.get("data-player")]["off" if "off" in classes else "board"] += 1
    return counts


def test_the_start_position_shows_15_checkers_per_side() -> None:
    root = parse(game_kind("backgammon").svg("4HPwATDgc/ABMA"))
    assert checkers(root) == {"0": {"board": 15, "off": 0}, "1": {"board": 15, "off": 0}}


def test_checkers_on_the_bar_and_borne_off_count_in_the_15_and_the_cube_and_dice_are_drawn() -> None:
    # Rows: the side not on roll, then the side on roll; index 0..23 points 1..24, 24 the bar.
    board = np.zeros((2, 25), dtype=np.int8)
    board[0][[5, 7, 12]] = [5, 3, 2]  # 10 on points, 1 on the bar, 4 borne off
    board[0][24] = 1
    board[1][[0, 1, 2, 3]] = [2, 2, 2, 1]  # 7 on points, 2 on the bar, 6 borne off
    board[1][24] = 2
    match = MatchId(cube=4, cube_owner=1, dice_owner=1, turn=1, dice=(5, 2), length=7, score=(3, 2)).encode()
    root = parse(game_kind("backgammon").svg(position_id(board), match_id=match))
    drawn = checkers(root)
    assert {player: sum(where.values()) for player, where in drawn.items()} == {"0": 15, "1": 15}
    assert drawn["1"]["off"] == 6 and drawn["0"]["off"] == 4  # player 1 is on roll: board row 1
    (cube,) = [g for g in root.iter(f"{SVG}g") if g.get("class") == "cube"]
    assert cube.get("data-value") == "4" and cube.get("data-owner") == "player 2" and "4" in texts(cube)
    dice = sorted(g.get("data-value") for g in root.iter(f"{SVG}g") if g.get("class") == "die")
    assert dice == ["2", "5"]
    assert any("score 3-2 (7-point match)" in line for line in texts(root))


def test_each_checker_move_of_a_play_is_an_arrow() -> None:
    kind = game_kind("backgammon")
    root = parse(kind.svg("4HPwATDgc/ABMA", played="24/18 13/11", best="13/10 24/23"))
    assert len(arrows(root, "played")) == 2 and len(arrows(root, "best")) == 2
    doubled = parse(kind.svg("4HPwATDgc/ABMA", played="13/9(2) 6/2(2)", best="13/9(2) 6/2(2)"))
    assert len(arrows(doubled, "played")) == 2 and not arrows(doubled, "best")
    assert "x2" in texts(arrows(doubled, "played")[0])
    cube = parse(kind.svg("4HPwATDgc/ABMA", played="double", best="no double"))  # named, not drawn
    assert not arrows(cube, "played") and any("played double" in line for line in texts(cube))
    # A take decision: player 2 has doubled a centred cube at 2 and player 1 is to answer.
    offered = MatchId(cube=2, dice_owner=1, turn=0, doubled=True, length=7).encode()
    answer = parse(kind.svg("4HPwATDgc/ABMA", played="take", best="pass", match_id=offered))
    assert any("cube 2, centred; player 2 doubles to 4" in line for line in texts(answer))


def move(ply: int, chance: float, mark: str | None) -> MoveRow:
    """Togyz move ``ply`` (from 1), 76 as played and best, the first player's chances ``chance`` before and
    after it, marked ``mark``."""
    actions = dict.fromkeys(("played", "best", "pv"), "76")
    chances = dict.fromkeys(("chance_before", "chance_after"), chance)
    return make_move_row(ply=ply, side=(ply - 1) % 2, mark=mark, **actions, **chances)


def test_the_graph_has_one_point_per_ply_and_one_linked_dot_per_mark() -> None:
    moves = [move(1, 0.0, None), move(2, 0.5, "?!"), move(3, -1.0, "??"), move(4, 1.0, None)]
    root = parse(evaluation_graph(moves, ("a", "b")))
    (line,) = [p for p in root.iter(f"{SVG}polyline") if p.get("class") == "evaluation"]
    points = [tuple(map(float, pair.split(","))) for pair in line.get("points").split()]
    assert len(points) == 4
    # The first player's chances 50%, 75%, 0%, 100%: heights in the plot from its bottom (TOP 12, 200 high).
    assert [round((212 - y) / 200, 3) for _, y in points] == [0.5, 0.75, 0.0, 1.0]
    links = [a.get("href") for a in root.iter(f"{SVG}a")]
    assert links == ["#ply-2", "#ply-3"]  # the move list's rows, by the table's ply (from 1)
    titles = [t.text for t in root.iter(f"{SVG}title")]
    assert titles == ["Ply 2: 76?! (inaccuracy)", "Ply 3: 76?? (blunder)"]
    assert [t.text for t in root.iter(f"{SVG}text")][-1] == "ply (1 to 4)"


def test_show_writes_the_diagram_as_an_svg_file(tmp_path: Path) -> None:
    out = tmp_path / "start.svg"
    result = CliRunner().invoke(main, ["show", START_FEN, "--svg", str(out)])
    assert result.exit_code == 0, result.output
    root = parse(out.read_text(encoding="utf-8"))
    assert sum(stones(pit(root, side, n)) for side in ("white", "black") for n in range(1, 10)) == 162
    result = CliRunner().invoke(main, ["show", "4HPwATDgc/ABMA", "--svg", str(out)])
    assert (
        result.exit_code == 0
        and sum(sum(v.values()) for v in checkers(parse(out.read_text())).values()) == 30
    )
    bad = CliRunner().invoke(main, ["show", "9S,9S 0 0 S 1", "--svg", str(out)])
    assert bad.exit_code == 2 and "POSITION" in bad.output
