/*
 * The version of the library linked in (see <ggmlviz/format.h>).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <ggmlviz/format.h>

unsigned ggmlviz_version_number(void)
{
	return GGMLVIZ_VERSION_NUMBER;
}

const char *ggmlviz_version_string(void)
{
	return GGMLVIZ_VERSION_STRING;
}
