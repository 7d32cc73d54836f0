#ifndef LIVERELAY_CCURL_SHIM_H
#define LIVERELAY_CCURL_SHIM_H

// Swift cannot call C variadic functions, so every argument type of curl_easy_setopt,
// curl_multi_setopt and curl_easy_getinfo gets its own typed inline wrapper here.
// CURLVERSION_NOW and CURL_GLOBAL_ALL are macros Swift does not import; they are wrapped too.

#include <curl/curl.h>

// MARK: curl_easy_setopt

static inline CURLcode ccurl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

/// For CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION.
static inline CURLcode ccurl_easy_setopt_write_function(CURL *handle, CURLoption option,
                                                        curl_write_callback value) {
    return curl_easy_setopt(handle, option, value);
}

/// For CURLOPT_READFUNCTION.
static inline CURLcode ccurl_easy_setopt_read_function(CURL *handle, CURLoption option,
                                                       curl_read_callback value) {
    return curl_easy_setopt(handle, option, value);
}

/// For CURLOPT_XFERINFOFUNCTION.
static inline CURLcode ccurl_easy_setopt_xferinfo_function(CURL *handle, CURLoption option,
                                                           curl_xferinfo_callback value) {
    return curl_easy_setopt(handle, option, value);
}

// MARK: curl_multi_setopt

static inline CURLMcode ccurl_multi_setopt_long(CURLM *handle, CURLMoption option, long value) {
    return curl_multi_setopt(handle, option, value);
}

static inline CURLMcode ccurl_multi_setopt_pointer(CURLM *handle, CURLMoption option, void *value) {
    return curl_multi_setopt(handle, option, value);
}

// MARK: curl_easy_getinfo

static inline CURLcode ccurl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode ccurl_easy_getinfo_double(CURL *handle, CURLINFO info, double *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode ccurl_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode ccurl_easy_getinfo_string(CURL *handle, CURLINFO info, char **value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode ccurl_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value) {
    return curl_easy_getinfo(handle, info, value);
}

// MARK: macros Swift does not import

static inline CURLversion ccurl_version_now(void) { return CURLVERSION_NOW; }

static inline long ccurl_global_all(void) { return CURL_GLOBAL_ALL; }

static inline long ccurl_pipe_multiplex(void) { return CURLPIPE_MULTIPLEX; }

static inline int ccurl_error_size(void) { return CURL_ERROR_SIZE; }

#endif
