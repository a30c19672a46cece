/*
 * hold — whether a change ferry made to a file still holds in a later version of it,
 * judged by the text the change put in, not by which commit last touched the lines.
 *
 * A change is one hunk: the lines it replaced (old) and the lines it wrote (new). The
 * later version is given as the lines that descend from the lines it wrote (those a
 * diff from the change's commit to the later one maps them to). The texts are read as
 * tokens — runs of letters, digits, `_` and non-ASCII bytes (words), and every other
 * character alone — with white space left out, so reindenting or rewrapping a line
 * changes nothing.
 *
 * What the change put in is read off a token diff of old and new: on each line it
 * wrote, every run of tokens it inserted, with the token before and after it on that
 * line as anchors (`.npu(` for `.cuda()` → `.npu()`, the whole line for an inserted
 * line). A line counts when its runs hold a word; it holds when each of its runs, with
 * its anchors, is still found in the later text. Then:
 *   - the change holds when one of its counted lines holds: a line a person built on
 *     (`.npu(non_blocking=True)`, a comment appended) holds, one put back to `.cuda()`
 *     does not;
 *   - every line it wrote deleted (no token left of what it wrote) undoes it;
 *   - a change with no counted line (it only took text out, or put in punctuation)
 *     holds unless its lines read as they did before it (put back by hand).
 */
#ifndef FERRY_HOLD_H
#define FERRY_HOLD_H

/* 1 when the change from old_text to new_text still holds in now (the text of the
 * lines descending from new_text's lines), else 0. */
int hold_still(const char *old_text, const char *new_text, const char *now);

#endif
