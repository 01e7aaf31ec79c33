// SPDX-License-Identifier: MIT
#include "import/common/log_clock.h"

#include "core/time_format.h"

namespace stallscope {

TimeNs logTimeNs(const LogClock& clock, int year, int month, int day, int h, int m, int s, TimeNs fracNs)
{
    const TimeNs civil = utcCivilNs(year, month, day, h, m, s);
    if (civil == kNoTime || fracNs < 0 || fracNs >= kNsPerSec) {
        return kNoTime;
    }
    return civil + fracNs - clock.utcOffsetNs; // both within a day's worth of ns: no overflow inside 1678..2261
}

} // namespace stallscope
