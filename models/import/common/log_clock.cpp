// SPDX-License-Identifier: MIT
#include "import/common/log_clock.h"

#include "core/time_format.h"

namespace stallscope {

TimeNs logTimeNs(const LogClock& clock, int year, int month, int day, int h, int m, int s, TimeNs fracNs)
{
    return utcCivilNs(year, month, day, h, m, s) + fracNs - clock.utcOffsetNs;
}

} // namespace stallscope
