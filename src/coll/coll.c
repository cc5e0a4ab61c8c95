/* coll/ — collectives. The minimal set the main job needs lives here until
 * the collectives issue brings the hierarchy-aware algorithms. */
#include "core/core.h"
