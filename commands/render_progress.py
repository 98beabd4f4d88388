"""Views of replica-move progress, shared by ``reassign progress`` and ``execute --wait``:
KIP-179's table (with a bar per moving replica and for the total), one-line summaries for logs,
JSON lines for scripts, and the reporters that put them on screen while ``follow`` samples."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click

from kadmin.execute.follow import FollowReporter

if TYPE_CHECKING:
    from rich.console import JustifyMethod
    from rich.live import Live

BAR = 12


def fraction(moved: int | None, left: int | None) -> float | None:
    if moved is None or left is None or moved + left <= 0:
        return None
    return moved / (moved + left)


def bar(frac: float | None, width: int = BAR):
    from rich.text import Text

    if frac is None:
        return Text("")
    filled = round(min(max(frac, 0.0), 1.0) * width)
    text = Text("█" * filled, style="cyan")
    text.append("░" * (width - filled), style="dim")
    text.append(f" {frac * 100:3.0f}%")
    return text


# A table longer than this is folded: what moves or is not in sync first, the rest counted (a
# terminal shows ~50 lines, and rich draws ~1,500 rows a second: 30,000 replicas took 20 s).
FOLD_ABOVE = 50
MOST_ROWS = 100  # replicas moving or not in sync shown in a folded table (largest left first)


def progress_table(snap, moving_first: bool = False, notes: bool = True, last_seen=None):
    """KIP-179's table: a row per replica (status in Kafka's words), bytes moved and left,
    rate and ETA for the moving ones, and a total row. ``moving_first`` (the live views), or
    more than FOLD_ABOVE replicas, folds it: the moving replicas first (at most MOST_ROWS, those
    with most left), then those not in sync, and one line counting the in-sync ones and one the
    rows left out (``--output json`` lists every replica). ``notes``: what the snapshot lacks
    (brokers down or not answering, end offsets not read) as caption lines; False where the
    command says it on stderr, as log-dirs describe does (the rows still say "Unknown").
    ``last_seen`` (a live view's LastSeen): what a replica whose bytes moved are unknown now
    had copied when last seen, shown as a floor (">= 184.6 MB"), in its row and the total."""
    from rich.markup import escape
    from rich.table import Table

    from kadmin.units import counted, format_duration, format_rate, format_size

    t = snap.totals
    seen = last_seen.floors(snap) if last_seen is not None else {}
    title = (
        f"Reassignment progress: {counted(snap.reassigning_partitions, 'partition')} reassigning, "
        f"{counted(t.moving_replicas, 'replica')} moving"
    )
    table = Table(title=title, title_justify="left", caption_justify="left", header_style="bold")
    captions = [escape(unanswered_note(snap))] if notes and snap.unanswered else []
    if notes and snap.unread_end_offsets:
        captions.append(escape(unestimated_note(snap)))
    if notes and snap.waiting:
        captions.append(escape(waiting_note(snap)))
    if notes and (held := held_note(snap)):
        captions.append(escape(held))
    if notes and differs_when_done(snap):
        captions.append(escape(differs_note(snap)))
    columns: tuple[tuple[str, JustifyMethod], ...] = (
        ("Topic", "left"),
        ("Partition", "right"),
        ("Broker", "right"),
        ("Status", "left"),
        ("Move", "left"),
        ("Progress", "left"),
        ("Moved", "right"),
        ("Left", "right"),
        ("Rate", "right"),
        ("ETA", "right"),
    )
    for col, justify in columns:
        table.add_column(col, justify=justify, no_wrap=col != "Move")
    rows = list(snap.replicas)
    folded = left_out = 0
    if moving_first or len(rows) > FOLD_ABOVE:
        moving = sorted((r for r in rows if r.move != "none"), key=lambda r: -(r.remaining_bytes or 0))
        others = [r for r in rows if r.move == "none" and r.status != "In sync"]
        folded = sum(1 for r in rows if r.move == "none" and r.status == "In sync")
        rows = moving + others
        left_out = max(0, len(rows) - MOST_ROWS)
        rows = rows[:MOST_ROWS]
        if left_out or (folded and not moving_first):
            captions.append("every replica: --output json")
    table.caption = "\n".join(captions) or None
    for r in rows:  # a log-dir move's source unknown (None): its directory is offline, the move paused
        moving_row = r.move != "none"
        move = {
            "inter-broker": "broker",
            "log-dir": escape(f"dir {r.log_dir or '(offline)'} -> {r.future_log_dir}"),
        }.get(r.move, "")
        style = "green" if r.status == "In sync" else ("yellow" if moving_row else "red")
        table.add_row(
            r.topic,
            str(r.partition),
            str(r.broker),
            f"[{style}]{r.status}[/]",
            move,
            bar(fraction(r.moved_bytes, r.remaining_bytes)) if moving_row else "",
            _moved_cell(r, seen) if moving_row else "",
            format_size(r.remaining_bytes) if moving_row else "",
            format_rate(r.rate) if moving_row else "",
            format_duration(r.eta) if moving_row else "",
        )
    if left_out:
        table.add_row(f"[dim]+ {left_out} more moving or not in sync[/]", "", "", "", "", "", "", "", "", "")
    if folded:
        table.add_row(f"[dim]+ {folded} replicas in sync[/]", "", "", "", "", "", "", "", "", "")
    table.add_section()
    table.add_row(
        "[bold]total[/]",
        "",
        "",
        _total_status(snap),
        "",
        bar(fraction(t.moved_bytes, t.remaining_bytes) if t.moved_known else None),
        moved_total(t, sum(seen.values())),
        format_size(t.remaining_bytes),
        format_rate(t.rate),
        format_duration(t.eta),
    )
    return table


def moved_total(t, last_seen: int = 0) -> str:
    """The bytes moved in total: a floor when some moving replica's are unknown, never a wrong 0.
    ``last_seen``: what those unknown now had copied when last seen (LastSeen), in the floor."""
    from kadmin.units import format_size

    if t.moved_known:
        return format_size(t.moved_bytes)
    floor = t.moved_bytes + last_seen
    return f">= {format_size(floor)}" if floor else "-"


def _moved_cell(r, seen) -> str:
    from kadmin.units import format_size

    if r.moved_bytes is None and r.key in seen:
        return f">= {format_size(seen[r.key])}"
    return format_size(r.moved_bytes)


class LastSeen:
    """What each moving replica had copied when last seen, for the views that follow moves:
    when its broker goes down (or stops answering) its bytes moved are unknown, but what it had
    copied is known until then (it stays on its disk): a floor, not 0."""

    def __init__(self):
        self.moved: dict[tuple, int] = {}

    def floors(self, snap) -> dict[tuple, int]:
        """Remember ``snap``'s known bytes moved; return the last-seen bytes of its moving
        replicas whose bytes moved are unknown now."""
        out = {}
        for r in snap.replicas:
            if not r.moving:
                continue
            if r.moved_bytes is not None:
                self.moved[r.key] = r.moved_bytes
            elif r.key in self.moved:
                out[r.key] = self.moved[r.key]
        return out


def _total_status(snap) -> str:
    t = snap.totals
    if snap.paused_only:
        return "paused"
    if t.moving_replicas or snap.reassigning_partitions:
        return "done" if snap.done else "moving"
    if snap.waiting:  # nothing moves, and what is requested will not by itself
        return "requested, not moving"
    return "done" if snap.done else "unknown"


def progress_line(snap, last_seen: LastSeen | None = None) -> str:
    """One line for logs and CI. Replicas that have finished drop out of a snapshot's totals, so
    the last line says only that nothing moves any more. While moves are seen, the brokers the
    snapshot lacks are named with what they cause ("waiting for broker 1 (down)"); the bytes
    moved of a replica there are a floor (what ``last_seen`` saw it copy) and its bytes left
    unknown, never 0."""
    from kadmin.units import counted, format_duration, format_rate, format_size

    t = snap.totals
    if snap.done and snap.waiting:
        return f"kadmin: nothing moves any more; {waiting_note(snap)}"
    if snap.done and differs_when_done(snap):
        return f"kadmin: done: {differs_note(snap)}"
    if snap.done:
        return "kadmin: done: nothing moves any more"
    if snap.unseen_only:
        return f"kadmin: nothing seen moving, but {unanswered_note(snap)}"
    if snap.paused_only:
        return f"kadmin: nothing copies: {paused_note(snap)}"
    frac = fraction(t.moved_bytes, t.remaining_bytes) if t.moved_known else None
    pct = f" ({frac * 100:.0f}%)" if frac is not None else ""
    rate = f", {format_rate(t.rate)}" if t.rate is not None else ""
    eta = f", ETA {format_duration(t.eta)}" if t.eta is not None else ""
    seen = sum(last_seen.floors(snap).values()) if last_seen is not None else 0
    moved = moved_total(t, seen)
    left = f"{format_size(t.remaining_bytes)} left" if t.remaining_bytes is not None else "bytes left unknown"
    if moved == "-":
        moved, left = (
            ("bytes moved and left unknown", "") if t.remaining_bytes is None else ("bytes moved unknown", left)
        )
    else:
        moved = f"{moved} moved{pct}"
    left = f", {left}" if left else ""
    return (
        f"kadmin: {counted(snap.reassigning_partitions, 'partition')} reassigning, "
        f"{counted(t.moving_replicas, 'replica')} moving: {moved}{left}{rate}{eta}"
        f"{unseen_state(snap)}{'; ' + held if (held := held_note(snap)) else ''}"
    )


def held_note(snap) -> str:
    """The replicas that hold a reassigning partition (``ProgressSnapshot.held``), each with why,
    and what ends the wait: "payments-5 waits for broker 3's replica (its log directory is
    offline): its reassignment ends only once it is back (no ETA meanwhile)". Those on a down
    broker are left to ``unseen_state`` ("waiting for broker 1 (down)"); "" when only they hold it."""
    from kadmin.execute.progress import DOWN, PAUSED_DESTINATION

    held = [r for r in snap.held if r.status != DOWN]
    if not held:
        return ""

    def why(r) -> str:
        if r.status == PAUSED_DESTINATION:
            return f"its directory {r.future_log_dir} is offline"
        return "its log directory is offline"

    shown = [f"{r.topic}-{r.partition} waits for broker {r.broker}'s replica ({why(r)})" for r in held[:3]]
    more = f" and {len(held) - 3} more" if len(held) > 3 else ""
    one = len(held) == 1
    return (
        f"{', '.join(shown)}{more}: {'its reassignment ends' if one else 'their reassignments end'} only once "
        f"{'it is' if one else 'they are'} back (no ETA meanwhile)"
    )


def unseen_state(snap) -> str:
    """What the brokers a snapshot lacks do to it, said on each line while moves are seen:
    ", waiting for broker 1 (down)" (a down broker holding a moving replica: its copy resumes
    when it restarts), ", broker 4 down: its moves unseen" (one holding no moving replica),
    ", broker 3 did not answer"."""
    from kadmin.model import is_down_error
    from kadmin.units import plural

    if not snap.unanswered:
        return ""

    def brokers(ids):
        return f"{plural('broker', len(ids))} {', '.join(map(str, ids))}"

    moving_on = {r.broker for r in snap.replicas if r.moving or r in snap.held}
    down = [b for b, why in snap.unanswered.items() if is_down_error(why)]
    waiting = [b for b in down if b in moving_on]
    idle = [b for b in down if b not in moving_on]
    silent = [b for b, why in snap.unanswered.items() if not is_down_error(why)]
    said = []
    if waiting:
        said.append(f"waiting for {brokers(waiting)} (down)")
    if idle:
        said.append(f"{brokers(idle)} down: {'its' if len(idle) == 1 else 'their'} moves unseen")
    if silent:
        said.append(f"{brokers(silent)} did not answer")
    return "".join(f", {s}" for s in said)


def paused_note(snap) -> str:
    """The paused log-dir moves of a snapshot, each with the directory it waits for, and what
    brings them back (``ProgressSnapshot.paused_only``)."""
    from kadmin.execute.progress import PAUSED

    moves = snap.paused_moves
    shown = [
        f"{r.topic}-{r.partition} on broker {r.broker} "
        + (
            "(its source directory is offline)"
            if r.status == PAUSED
            else f"(its destination directory {r.future_log_dir} is offline)"
        )
        for r in moves[:3]
    ]
    more = f" and {len(moves) - 3} more" if len(moves) > 3 else ""
    one = len(moves) == 1
    return (
        f"{'the move' if one else 'every move'} left {'is' if one else 'are'} paused: {', '.join(shown)}{more}; "
        f"{'it resumes' if one else 'they resume'} when the broker restarts with that directory back"
    )


class AllPaused(Exception):
    """Raised by ``StopWhenPaused`` to end following: every move left is paused."""

    def __init__(self, snap):
        super().__init__("every move left is paused")
        self.snap = snap


class StopWhenPaused(FollowReporter):
    """Reports through ``inner``, then ends following (``AllPaused``) once a snapshot shows only
    paused moves left: nothing copies until a broker restarts, so waiting would never end."""

    def __init__(self, inner: FollowReporter):
        self.inner = inner

    def snapshot(self, snap) -> None:
        self.inner.snapshot(snap)
        if snap.paused_only:
            raise AllPaused(snap)

    def still_running(self, outcome) -> None:
        self.inner.still_running(outcome)


def unanswered_note(snap) -> str:
    """What a snapshot lacks: the brokers that did not answer DescribeLogDirs."""
    from kadmin.commands.render import not_answering

    who, their = not_answering(snap.unanswered)
    return f"{who}: {their} replicas' state, log-dir moves and sizes are unknown"


def differs_when_done(snap) -> bool:
    """Nothing moves any more, but the cluster differs from the plan (a cancelled or re-targeted
    move, a replica another tool put back): done, yet not where the plan wants it."""
    return snap.done and bool(snap.differs)


def differs_note(snap) -> str:
    """What ``differs_when_done`` says, with the counts; verify says what differs."""
    from kadmin.units import counted

    d = snap.differs
    what = []
    if d.partitions:
        what.append(counted(d.partitions, "partition"))
    if d.log_dir_replicas:
        what.append(counted(d.log_dir_replicas, "log-dir replica"))
    one = d.partitions + d.log_dir_replicas == 1
    return (
        f"nothing moves any more, but {' and '.join(what)} {'differs' if one else 'differ'} from the plan: "
        "`kadmin reassign verify` says what"
    )


def waiting_note(snap) -> str:
    """The requests in a snapshot's scope that no broker carries out (a stuck reassignment node)."""
    tps = [str(w.tp) for w in snap.waiting]
    many = len(tps) > 1
    which = ", ".join(tps[:3]) + (f" and {len(tps) - 3} more" if len(tps) > 3 else "")
    return (
        f"{which} {'are' if many else 'is'} requested, but no broker is moving {'them' if many else 'it'} "
        "(stuck: see the warning)"
    )


def unestimated_note(snap) -> str:
    """What a snapshot could not estimate: the partitions catching up whose end offset was not
    read (their leader did not answer), and why when the backend said."""
    tps = snap.unread_end_offsets
    which = ", ".join(map(str, tps[:3])) + (f" and {len(tps) - 3} more" if len(tps) > 3 else "")
    why = snap.end_offsets_error or ("their end offsets" if len(tps) > 1 else "its end offset") + " could not be read"
    return f"{which}: messages behind not estimated ({why})"


def snapshot_document(snap) -> dict:
    """The JSON document of one snapshot (schemas/progress-snapshot.json)."""
    import time

    from kadmin.execute.progress import snapshot_json
    from kadmin.throttling.record import now_iso

    return snapshot_json(snap, now_iso(time.time()))


class JsonLines(FollowReporter):
    """One progress snapshot per line on stdout."""

    def snapshot(self, snap) -> None:
        from kadmin.commands import render

        render.print_json_line(snapshot_document(snap))


class PlainLines(FollowReporter):
    """A line per snapshot, for logs and CI (not a terminal)."""

    def __init__(self, err: bool = True):
        self.err = err
        self.last_seen = LastSeen()
        self.unanswered: dict[int, str] = {}

    def snapshot(self, snap) -> None:
        self.say_unanswered(snap)
        click.echo(progress_line(snap, self.last_seen), err=self.err)

    def say_unanswered(self, snap) -> None:
        """Once on stderr, in the one-shot progress's words: a broker that goes down (or stops
        answering); and when it is seen again."""
        from kadmin.commands import render

        new = {b: why for b, why in snap.unanswered.items() if self.unanswered.get(b) != why}
        back = sorted(b for b in self.unanswered if b not in snap.unanswered)
        self.unanswered = dict(snap.unanswered)
        if new:
            who, their = render.not_answering(new)
            render.warn(f"{who}: {their} replicas' state, log-dir moves and sizes are unknown")
        if back:
            from kadmin.units import plural

            click.echo(f"kadmin: {plural('broker', len(back))} {', '.join(map(str, back))} seen again", err=True)

    def still_running(self, outcome) -> None:
        click.echo(
            "kadmin: nothing of the plan is copying, but the cluster still lists work running; waiting", err=True
        )


class LiveTable(PlainLines):
    """The table refreshed in place; moving replicas first, with bars."""

    def __init__(self, err: bool = True):
        super().__init__(err)
        self.live: Live | None = None

    def __enter__(self):
        return self

    def snapshot(self, snap) -> None:
        from rich.live import Live

        from kadmin.commands import render

        view = progress_table(snap, moving_first=True, last_seen=self.last_seen)  # its caption names who is down
        if self.live is None:
            console = render.stderr() if self.err else render.stdout()
            self.live = Live(view, console=console, auto_refresh=False, transient=False)
            self.live.start(refresh=True)
        else:
            self.live.update(view, refresh=True)

    def __exit__(self, *exc) -> None:
        if self.live is not None:
            self.live.stop()


def reporter_for(output: str, err: bool = True):
    """JSON lines with --output json; a live table on a terminal; plain lines otherwise.
    ``err``: where people's views go (stderr when stdout carries another result)."""
    from contextlib import nullcontext

    if output == "json":
        return nullcontext(JsonLines())
    stream = sys.stderr if err else sys.stdout
    if stream.isatty():
        return LiveTable(err)
    return nullcontext(PlainLines(err))
