/* Market-data digestion, firmware's half (see digest.h). */
#include "offload/digest.h"

#include <string.h>

void ofl_digest_init(ofl_digest_t *d) { memset(d, 0, sizeof *d); }

static bool seq_before_or_at(uint32_t a, uint32_t b) { return (int32_t)(a - b) <= 0; }

static void refused_skip(ofl_digest_t *d) {
    d->skip_refused++;
    d->disagree = true;
}

/* [seq, seq + len) is the hardware's, and count messages from first end in it (count 0: none); drop: it finishes
 * the undecided message whose head firmware holds. */
static void range(ofl_digest_t *d, const ofl_digest_ops_t *ops, void *ctx, uint32_t seq, uint32_t len, uint32_t first,
                  uint32_t count, bool drop) {
    if (len == 0) return;
    d->bytes += len;
    bool queued = count || drop;
    if (queued) { /* queued first: TCP may skip the range at once, inside ops->skip */
        unsigned k = (d->head + d->n) % OFL_DIGEST_PENDING;
        d->pend[k].end = seq + len;
        d->pend[k].first = first;
        d->pend[k].count = count;
        d->pend[k].drop = drop;
        d->n++;
    }
    if (ops->skip(ctx, seq, len) < 0) {
        refused_skip(d);
        if (queued && d->n && d->pend[(d->head + d->n - 1) % OFL_DIGEST_PENDING].end == seq + len) d->n--; /* never reached */
    }
}

void ofl_digest_take(ofl_digest_t *d, const ofl_digest_desc_t *x, const ofl_digest_ops_t *ops, void *ctx) {
    if (x->garbled) d->garbled++;
    /* the undecided message firmware holds the head of: still undecided (this whole segment is more of it), taken
     * by the hardware (its rest starts this segment's hardware bytes), or firmware's */
    bool taken = false;
    if (d->holding && !(x->held == x->len && !x->digested)) {
        taken = x->digested || x->skip;
        if (taken) d->held_taken++;
        else d->held_fw++;
    }
    d->holding = !x->digested && x->held;
    if (x->digested) {
        d->digested++;
        range(d, ops, ctx, x->seq, x->len, x->first, x->hw_count, taken);
        return;
    }
    d->passed++;
    if (x->held) d->held++;
    if (x->skip || x->tail) d->trimmed++;
    if (x->skip + x->tail + x->held > x->len) { /* cannot be: the hardware's bytes overlap */
        refused_skip(d);
        d->holding = false;
        return;
    }
    range(d, ops, ctx, x->seq, x->skip, x->first, x->hw_count, taken);
    range(d, ops, ctx, x->seq + x->len - x->tail, x->tail, 0, 0, false);
}

void ofl_digest_skipped(ofl_digest_t *d, uint32_t seq, uint32_t len, const ofl_digest_ops_t *ops, void *ctx) {
    uint32_t end = seq + len;
    while (d->n && seq_before_or_at(d->pend[d->head].end, end)) {
        uint32_t first = d->pend[d->head].first, count = d->pend[d->head].count;
        bool drop = d->pend[d->head].drop;
        d->head = (uint8_t)((d->head + 1) % OFL_DIGEST_PENDING);
        d->n--;
        if (drop && ops->drop(ctx) < 0) { /* firmware held no head: the two sides disagree */
            d->msg_refused++;
            d->disagree = true;
        }
        if (!count) continue;
        d->hw_msgs += count;
        if (ops->messages(ctx, first, count) < 0) {
            d->msg_refused++;
            d->disagree = true;
        }
    }
}
