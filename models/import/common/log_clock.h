// SPDX-License-Identifier: MIT
#pragma once

// Text logs stamp lines in local civil time, often without a year (c10's "I1101 00:05:03.162555", OpenSM's
// "Nov 01 00:05:03 162555"): the clock they are read against supplies what the line leaves out. Shared by the
// rank-log and OpenSM-log readers; the folder importer sets it (year from the dumps, zone from the mapping).

#include "core/types.h"

namespace stallscope {

struct LogClock
{
    int year = 1970; // c10 times carry MMDD only
    TimeNs utcOffsetNs = 0; // local time − UTC (logs are in local time)
};

// A log's local civil time → epoch ns on the job clock (UTC), using the clock's offset.
TimeNs logTimeNs(const LogClock& clock, int year, int month, int day, int h, int m, int s, TimeNs fracNs);

} // namespace stallscope
