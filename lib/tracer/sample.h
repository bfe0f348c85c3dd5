/*
 * Op sampling: the ops of 1 step (or graph) in op_sample are timed, per
 * thread, counted down without a division. A unit is the outermost step or
 * graph open on a thread; ops outside any unit are always timed.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_SAMPLE_H
#define GGMLVIZ_SAMPLE_H

/* A step or graph begins on the calling thread. */
void ggmlviz__unit_begin(void);
/* It ends. */
void ggmlviz__unit_end(void);
/* Whether the calling thread's current unit has its ops timed. */
int ggmlviz__unit_sampled(void);

#endif /* GGMLVIZ_SAMPLE_H */
