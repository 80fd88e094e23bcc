/* onnxlegal — version and export macros. This header is the single source of the version:
 * the Makefile reads the soname and the release numbers from it. */
#ifndef ONNXLEGAL_VERSION_H
#define ONNXLEGAL_VERSION_H

#define OLG_VERSION_MAJOR 0
#define OLG_VERSION_MINOR 1
#define OLG_VERSION_PATCH 0
#define OLG_VERSION_NUMBER (OLG_VERSION_MAJOR * 10000 + OLG_VERSION_MINOR * 100 + OLG_VERSION_PATCH)
#define OLG_VERSION_STRING "0.1.0"

/* The ABI major version: it is the soname's number and changes only on an incompatible change. */
#define OLG_ABI_VERSION 0

#if defined(_WIN32)
#  define OLG_API __declspec(dllexport)
#elif defined(__GNUC__)
#  define OLG_API __attribute__((visibility("default")))
#else
#  define OLG_API
#endif

/* A null pointer in the headers' initializer macros: nullptr in C++, so that they compile clean
 * under -Wzero-as-null-pointer-constant. */
#ifdef __cplusplus
#  define OLG_NULLPTR nullptr
#else
#  define OLG_NULLPTR ((void *)0)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* OLG_VERSION_NUMBER of the library actually linked (compare with the header's). */
OLG_API int olg_version(void);
/* "MAJOR.MINOR.PATCH" of the library actually linked. */
OLG_API const char *olg_version_string(void);

#ifdef __cplusplus
}
#endif
#endif
