/* pace.c: the pipeline's shared pace (tasklets.c's time model). While k tasklets compete
 * for the pipeline, each issues one instruction every max(11, k) cycles; a tasklet does
 * not compete in its idle stretch [from, until) (its last DMA, its sleep, everything
 * after its end). This file answers, at every switch point, when a tasklet issuing n
 * instructions from its clock is done.
 *
 * The stretches' ends are kept in one list sorted by modelled time, so that the answer
 * never visits a tasklet whose stretch cannot change the pace: a finger stays at the
 * last end at or before the clocks the scheduler is at (they move forward, mostly), with
 * the number of tasklets idle there, so the pace at the issuing tasklet's clock comes
 * from a few steps of the finger, and the changes after it are the list's next nodes, in
 * the order the pace walk needs. An answer costs the pace changes it walks through, not
 * a pass over the tasklets. An update unlinks and links a tasklet's two ends, searching
 * from where new ends fall; when every tasklet meets at a barrier, every stretch is past
 * and the list empties. The answers are those of the pass over every tasklet that this
 * replaces, to the cycle (benchmarks/emulator/schedule_digest.py). */
#include <stdbool.h>
#include <stdint.h>

#include "runtime.h"

/* Node 2 * id is tasklet id's `from`, node 2 * id + 1 its `until`: in the list when its
 * stretch is not empty (an `until` of UINT64_MAX, a sleep with no end yet, never is).
 * Ties in time are in node order, so the changes at one cycle come tasklet by tasklet, a
 * tasklet's start of idling before its end, the order the model was defined with. */
#define NODES (2 * EMU_MAX_TASKLETS)
#define EDGE NODES /* the list's sentinel: before the first node and after the last */

static uint64_t at[NODES + 1];            /* the time of each end (idle_from, idle_until) */
static uint8_t next[NODES + 1], prev[NODES + 1];
static uint64_t linked;                   /* bit node: in the list */
static unsigned nr_tasklets, nr_untils;   /* untils in the list */
/* The finger: the list's last node at or before the clock of the last question (EDGE:
 * none), the tasklets idle there (froms minus untils up to it) and the untils up to it. */
static unsigned finger = EDGE;
static int finger_idle;
static unsigned finger_untils;
/* Where new ends are likely to go: after the last node linked (tasklets that did the same
 * work start to sleep at the same cycle, one after another), or, for each tasklet, at the
 * node before the end of its last issue (where its DMA or sleep starts; others may have
 * run in between, so it is checked before use). */
static unsigned last_linked = EDGE;
static uint8_t issue_hint[EMU_MAX_TASKLETS];
/* No tasklet issues before this cycle any more (every one met there): a stretch that
 * ends by then changes no pace, and stays out of the list. */
static uint64_t all_met_at;

_Static_assert(NODES < 64 && NODES < 255, "a bit per node, a byte per link");

static inline bool is_until(unsigned node)
{
    return node & 1;
}

/* What a node adds to the count of idle tasklets from its time on. */
static inline int weight(unsigned node)
{
    return is_until(node) ? -1 : 1;
}

static inline bool before(unsigned x, unsigned y)
{
    return at[x] < at[y] || (at[x] == at[y] && x < y);
}

static inline __attribute__((always_inline)) void unlink_node(unsigned x)
{
    if (!(linked >> x & 1))
        return;
    if (x == last_linked)
        last_linked = prev[x];
    if (x == finger) {
        finger = prev[x];
        finger_idle -= weight(x);
        finger_untils -= is_until(x);
    } else if (finger != EDGE && before(x, finger)) {
        finger_idle -= weight(x);
        finger_untils -= is_until(x);
    }
    next[prev[x]] = next[x];
    prev[next[x]] = prev[x];
    linked &= ~(1ull << x);
    nr_untils -= is_until(x);
}

/* Whether node x goes right after q (EDGE: first). */
static inline bool fits_after(unsigned q, unsigned x)
{
    return (q == EDGE || ((linked >> q & 1) && before(q, x))) &&
           (next[q] == EDGE || before(x, next[q]));
}

static inline __attribute__((always_inline)) void link_node(unsigned x)
{
    /* New ends fall at the tail (a DMA's end, a wake-up), right after the last one linked,
     * or at the end of the last issue; else near the finger (a DMA's start, at the clock
     * the scheduler is at) or a few nodes from the tail (tasklets reach a barrier about in
     * the order they left the last one): from whichever is nearer in time. p: the node x
     * goes after. */
    unsigned p = prev[EDGE];
    if (p != EDGE && !before(p, x)) {
        if (fits_after(last_linked, x)) {
            p = last_linked;
        } else if (fits_after(issue_hint[x >> 1], x)) {
            p = issue_hint[x >> 1];
        } else {
            if (finger != EDGE && at[x] - at[finger] < at[p] - at[x]) {
                p = finger;
                while (next[p] != EDGE && before(next[p], x))
                    p = next[p];
            }
            while (p != EDGE && !before(p, x))
                p = prev[p];
        }
    }
    next[x] = next[p];
    prev[x] = (uint8_t)p;
    prev[next[p]] = (uint8_t)x;
    next[p] = (uint8_t)x;
    last_linked = x;
    linked |= 1ull << x;
    nr_untils += is_until(x);
    if (finger != EDGE && before(x, finger)) {
        finger_idle += weight(x);
        finger_untils += is_until(x);
    }
}

static void empty_list(void)
{
    next[EDGE] = prev[EDGE] = EDGE;
    linked = 0;
    nr_untils = 0;
    finger = last_linked = EDGE;
    for (unsigned id = 0; id < EMU_MAX_TASKLETS; id++)
        issue_hint[id] = EDGE;
    finger_idle = 0;
    finger_untils = 0;
}

void __dpurt_pace_reset(unsigned tasklets)
{
    nr_tasklets = tasklets;
    for (unsigned node = 0; node <= NODES; node++)
        at[node] = 0;
    all_met_at = 0;
    empty_list();
}

void __dpurt_pace_all_met(uint64_t at_cycle)
{
    all_met_at = at_cycle;
    empty_list();
}

/* One end: node x at time t, in the list or not. */
static inline __attribute__((always_inline)) void place(unsigned x, uint64_t t, bool listed)
{
    if ((linked >> x & 1) && at[x] == t && listed)
        return; /* unchanged: a wake-up leaves the sleep's start where it was */
    unlink_node(x);
    at[x] = t;
    if (listed)
        link_node(x);
}

void __dpurt_pace_set_idle(unsigned id, uint64_t from, uint64_t until)
{
    if (from == at[2 * id] && until == at[2 * id + 1])
        return; /* a wake-up sets the stretch its waker's advance set already */
    if (nr_tasklets <= PIPELINE_INTERVAL) { /* the pace is 11 throughout: no list */
        at[2 * id] = from;
        at[2 * id + 1] = until;
        return;
    }
    bool stretch = from < until && until > all_met_at;
    place(2 * id, from, stretch);
    place(2 * id + 1, until, stretch && until != UINT64_MAX);
}

uint64_t __dpurt_pace_idle_from(unsigned id)
{
    return at[2 * id];
}

bool __dpurt_pace_idle_at(unsigned id, uint64_t t)
{
    return at[2 * id] <= t && t < at[2 * id + 1];
}

/* gap / pace without a division instruction (this runs at every switch point, and a
 * division takes tens of cycles): a multiply by ceil(2^64 / pace), exact for gaps below
 * 2^32, since the error is below gap / 2^64 and gap / pace is at least 1 / pace from the
 * next integer. */
#define RECIPROCAL(d) (UINT64_MAX / (d) + 1)
static const uint64_t reciprocals[EMU_MAX_TASKLETS + 1] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, RECIPROCAL(11), RECIPROCAL(12), RECIPROCAL(13),
    RECIPROCAL(14), RECIPROCAL(15), RECIPROCAL(16), RECIPROCAL(17), RECIPROCAL(18),
    RECIPROCAL(19), RECIPROCAL(20), RECIPROCAL(21), RECIPROCAL(22), RECIPROCAL(23),
    RECIPROCAL(24)};
_Static_assert(EMU_MAX_TASKLETS == 24, "one reciprocal per pace, 11 to the most tasklets");

static inline uint64_t divide_by_pace(uint64_t gap, uint64_t pace)
{
    if (gap >> 32)
        return gap / pace;
    return (uint64_t)(((unsigned __int128)gap * reciprocals[pace]) >> 64);
}

uint64_t __dpurt_pace_issue_end(unsigned self, uint64_t start, uint64_t n)
{
    if (nr_tasklets <= PIPELINE_INTERVAL)
        return start + n * PIPELINE_INTERVAL;
    /* The finger to the last end at or before `start`. */
    unsigned b = finger, untils = finger_untils;
    int idle = finger_idle;
    while (b != EDGE && at[b] > start) {
        idle -= weight(b);
        untils -= is_until(b);
        b = prev[b];
    }
    for (unsigned x = next[b]; x != EDGE && at[x] <= start; x = next[x]) {
        idle += weight(x);
        untils += is_until(x);
        b = x;
    }
    finger = b;
    finger_idle = idle;
    finger_untils = untils;
    /* The others idle at `start`, and the untils after it (they compete again then). */
    const unsigned self_from = 2 * self, self_until = 2 * self + 1;
    idle -= at[self_from] <= start && start < at[self_until];
    unsigned competing = nr_tasklets - (unsigned)idle;
    unsigned starting = nr_untils - untils - ((linked >> self_until & 1) && at[self_until] > start);
    /* Never more than 11 competing: one every 11 cycles throughout. */
    issue_hint[self] = (uint8_t)b;
    if (competing + starting <= PIPELINE_INTERVAL)
        return start + n * PIPELINE_INTERVAL;
    uint64_t pace = shared_pace(competing);
    unsigned e = next[b];
    while (e != EDGE && e >> 1 == self)
        e = next[e];
    if (e == EDGE || n * pace <= at[e] - start) {
        issue_hint[self] = prev[e];
        return start + n * pace;
    }
    /* The pace changes before the end: at each, the instructions that fit at the pace so
     * far, then the new pace from the last one's issue on. Once no more tasklets can
     * compete than 11 (those competing and those still to start again), the pace is 11 to
     * the end: the rest of the list (more tasklets idling, at a barrier say) is skipped. */
    uint64_t now = start;
    unsigned ahead = starting;
    for (; e != EDGE; e = next[e]) {
        if (e >> 1 == self)
            continue;
        if (competing + ahead <= PIPELINE_INTERVAL)
            break;
        ahead -= is_until(e);
        pace = shared_pace(competing);
        if (at[e] > now) {
            uint64_t gap = at[e] - now;
            if (n * pace <= gap) {
                issue_hint[self] = prev[e];
                return now + n * pace;
            }
            uint64_t fits = divide_by_pace(gap, pace);
            n -= fits;
            now += fits * pace;
        }
        competing = is_until(e) ? competing + 1 : competing - 1;
    }
    issue_hint[self] = prev[EDGE];
    return now + n * shared_pace(competing);
}
