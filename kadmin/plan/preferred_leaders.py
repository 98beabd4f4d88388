"""The preferred-leader step of the planners: reorder replica lists (which moves no data) so
every broker is the preferred leader (first replica) of as many partitions as the others, within
one. Direct hand-overs first (from a broker over the ceiling to one under the floor, then between
any two brokers two or more apart), then chains (A leads p, B leads q: hand p to B, q to C).

``reassign generate``'s minimal placement (``minimal_assign``) ends with it; ``reassign
balance`` (``broker_balance_steps``) runs it over the partitions it may reorder.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence


class _Lists:
    """The lists being reordered, numbered 0..n-1."""

    def __init__(self, reps: list[list[int]], brokers: Sequence[int]):
        self.reps = reps
        self.parts = list(range(len(reps)))
        self.brokers = list(brokers)


def _lead(st: _Lists, tp: int, b: int) -> None:
    reps = st.reps[tp]
    reps.remove(b)
    reps.insert(0, b)


def spread_preferred_leaders(reps: list[list[int]], brokers: Sequence[int]) -> None:
    """Reorder the replica lists ``reps`` in place (no replica changes broker) so that the
    preferred-leader counts of ``brokers`` end within one of each other where the lists allow.
    Every list's first replica must be in ``brokers``."""
    st = _Lists(reps, brokers)
    lcount = dict.fromkeys(st.brokers, 0)
    for tp in st.parts:
        lcount[st.reps[tp][0]] += 1
    low, rem = divmod(len(st.parts), len(st.brokers))
    high = low + (1 if rem else 0)
    # First only from brokers over the ceiling to brokers under the floor: every such hand-over
    # is one the balance needs, so no leadership moves twice. Then any hand-over between two
    # brokers two or more apart (each lowers the sum of squared leader counts).
    for needed in (lambda a, b: lcount[a] > high and lcount[b] < low, lambda a, b: lcount[a] - lcount[b] >= 2):
        changed = True
        while changed:
            changed = False
            for tp in st.parts:
                replicas = st.reps[tp]
                leader = replicas[0]
                best = min(replicas, key=lambda b: (lcount[b], b))
                if needed(leader, best):
                    lcount[leader] -= 1
                    lcount[best] += 1
                    _lead(st, tp, best)
                    changed = True
    while max(lcount.values()) - min(lcount.values()) > 1:  # chains, rarely needed
        if not _leader_chain(st, lcount):
            return


def _leader_chain(st: _Lists, lcount: dict[int, int]) -> bool:
    led: dict[int, list[int]] = defaultdict(list)
    for tp in st.parts:
        led[st.reps[tp][0]].append(tp)
    high, low = max(lcount.values()), min(lcount.values())
    attempts = (
        ([b for b in st.brokers if lcount[b] == high], lambda b: lcount[b] <= high - 2),
        ([b for b in st.brokers if lcount[b] >= low + 2], lambda b: lcount[b] == low),
    )
    for sources, is_goal in attempts:
        parent: dict[int, tuple[int, int] | None] = dict.fromkeys(sources)
        queue = list(sources)
        for x in queue:
            for tp in led[x]:
                for y in st.reps[tp]:
                    if y in parent:
                        continue
                    parent[y] = (x, tp)
                    if is_goal(y):
                        _shift(st, lcount, parent, y)
                        return True
                    queue.append(y)
    return False


def _shift(st: _Lists, lcount: dict[int, int], parent, goal: int) -> None:
    node = goal
    lcount[goal] += 1
    while parent[node] is not None:
        x, tp = parent[node]
        _lead(st, tp, node)
        node = x
    lcount[node] -= 1
