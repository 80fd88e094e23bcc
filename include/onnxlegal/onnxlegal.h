/* onnxlegal — the whole public API. */
#ifndef ONNXLEGAL_H
#define ONNXLEGAL_H
#include "config.h"
#include "version.h"
#include "status.h"
#include "alloc.h"
#include "dtype.h"
#include "graph.h"
#include "io.h"
#include "diag.h"
#include "registry.h"
#include "legalize.h"
#include "check.h"
#include "ops.h"
#endif
