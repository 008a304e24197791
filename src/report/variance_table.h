// variance_table — how sure the study is, arm by arm: how the variance of the handshake and
// total p50 splits between trials and their connections (summary.h's VarianceSplit), one table
// that the terminal, Markdown and HTML reports print alike. No statistics here: it reads the
// summary's records.
#pragma once

#include "report/cpu_tables.h"
#include "report/summary.h"

namespace pqc::report {

// VarianceTable: per arm and phase (handshake, total), the trials, one trial's p50 sampling
// spread from its connections and the spread trials add beyond it (both as standard
// deviations, ms), the design effect, the intra-class correlation, the connections the study
// is worth, and whether trials disagree beyond chance; no rows when no arm has two trials.
TitledTable VarianceTable(const Summary& summary);

}  // namespace pqc::report
