#ifndef CLIBXML2_SHIM_H
#define CLIBXML2_SHIM_H
// Debian's (and most distributions') libxml2 is built with ICU, so <libxml/encoding.h> includes
// the system's <unicode/ucnv.h>. Foundation on Linux carries its own ICU (_FoundationICU), and a
// target that sees both fails with "'UErrorCode' has different definitions in different
// modules". We never touch libxml2's ICU converters (only the tail of xmlCharEncodingHandler
// depends on it, a struct we never allocate or read), so keep ICU out of this module's view:
// xmlversion.h is include-guarded, and the headers below see LIBXML_ICU_ENABLED undefined.
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlschemas.h>
#include <libxml/xmlschemastypes.h>
#endif
