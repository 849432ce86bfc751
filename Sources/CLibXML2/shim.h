#ifndef CLIBXML2_SHIM_H
#define CLIBXML2_SHIM_H
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlschemas.h>
#include <libxml/xmlversion.h>

/// `xmlFree` is a global function pointer, which Swift 6 treats as shared mutable state.
static inline void clibxml2_free(void *pointer) { xmlFree(pointer); }
#endif
