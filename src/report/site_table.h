// site_table — an arm's connections split by client site, for arms on a network of several
// sites (one trial loading the target from every site at once): one table that the terminal,
// Markdown and HTML reports print alike. No statistics here: it reads the summary's records.
#pragma once

#include "report/cpu_tables.h"
#include "report/summary.h"

namespace pqc::report {

// SiteTable: per arm and site, connections, connect and handshake p50 in ms and in the site's
// round trips, handshake p99, time to first byte, errors; no rows when no arm has sites.
TitledTable SiteTable(const Summary& summary);

}  // namespace pqc::report
