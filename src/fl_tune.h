/* Every tunable of the solvers in one place, each with what it trades.
 * The measurements behind each value are in
 * inst/bench/results/tunables.md, under the constant's name; changing one
 * means rerunning what is recorded there.  Constants that only make room
 * for rounding stay beside their code. */
#ifndef FL_TUNE_H
#define FL_TUNE_H

/* -- Speed only: any value gives the same picks ----------------------- */

/* Candidates a nhpc leader posts per lane and step, at least FL_POST_MIN,
 * doubling each step up to FL_POST_MAX: fewer barriers and shared chunk
 * reads against evaluating tops lazy greedy might not need. */
#define FL_POST_PER_LANE 2
#define FL_POST_MIN 16
#define FL_POST_MAX 64
/* Candidates evaluated together by one thread in the first evaluations,
 * and by the team for the first threshold and the final bound. */
#define FL_TEAM_BATCH 16
/* Candidates per parallel region of the first evaluations: how soon an
 * interrupt is seen against one more region. */
#define FL_FIRST_SLICE 8192
/* Heaps per group when there are several groups: balance of the round's
 * uneven CELF chains against more heap tops to merge. */
#define FL_HEAPS_PER_GROUP 4
/* Evaluation steps a heap may take in a round's first phase: a long CELF
 * chain finishes in the second phase, shared by all groups. */
#define FL_FIRST_PHASE_STEPS 16
/* How a pair of lanes' share follows their measured speeds: the step
 * towards even finishing, the least share, and the least work per lane
 * (plans, client visits) for a step to count. */
#define FL_BALANCE_GAIN 0.5
#define FL_BALANCE_FLOOR 0.25
#define FL_BALANCE_PLANS 4
#define FL_BALANCE_VISITS 4096

/* -- Serial cut-offs: below them a parallel region costs more than it
 * saves (fl_par_threads() in fl_omp.h takes the work and one of these) -- */

/* points of a loop over clients or data points (coverage and reach
 * updates, OCC passes) */
#define FL_PAR_MIN_CLIENTS 4096
/* client-candidate pairs of a stochastic greedy step */
#define FL_PAR_MIN_PAIRS 100000.0
/* values of a column-major to row-major copy (r_util.c) */
#define FL_PAR_MIN_VALUES 100000.0
/* distance work (coordinates times centers) of an OCC proposal step:
 * OFL's epochs are short in points but each point meets many facilities */
#define FL_PAR_MIN_DISTANCE_WORK 65536.0

/* -- Bound effort: tighter `bound` against more evaluations ------------ */

/* Evaluations allowed to tighten the final bound: FL_REFINE_PER_PICK k +
 * FL_REFINE_EXTRA. */
#define FL_REFINE_PER_PICK 8
#define FL_REFINE_EXTRA 64
/* Clusters bounded below this fraction of the skip threshold are still
 * visited when the final bound is tightened. */
#define FL_REFINE_FRACTION 0.1

/* -- Quality against work (eps > 0 only; with eps = 0 the picks are
 * greedy's whatever these are) ---------------------------------------- */

/* The first evaluations, with nothing covered, skip the clusters later
 * ones would skip at this many times their threshold, keyed with the
 * mass estimate of what they skip. */
#define FL_FIRST_COARSE 3.0
/* Coarse gains are keyed up by this fraction and the leaders and picks
 * evaluated finely: picks are greedy's unless a coarse gain falls short
 * by more.  Larger: more fine evaluations. */
#define FL_TIE 0.05
/* A fine evaluation skips what a coarse one would at this fraction of
 * the skip threshold. */
#define FL_FINE_FRACTION 0.01

#endif
