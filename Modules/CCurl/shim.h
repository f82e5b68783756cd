// CCurl: libcurl for Swift.
//
// libcurl's option setters are C variadic functions (`curl_easy_setopt(h, opt, ...)`),
// which Swift cannot call. Each wrapper below fixes the third argument to one type, the
// way swift-corelibs-foundation's CFURLSessionInterface.h does. Swift picks the wrapper
// that matches the option's documented argument type.
#ifndef SHELF_CCURL_SHIM_H
#define SHELF_CCURL_SHIM_H

#include <curl/curl.h>

// MARK: - Global

/// `curl_global_init(CURL_GLOBAL_DEFAULT)`: the macro is not importable as a Swift constant.
static inline CURLcode shelf_curl_global_init(void) {
    return curl_global_init(CURL_GLOBAL_DEFAULT);
}

/// The size libcurl requires for a `CURLOPT_ERRORBUFFER` buffer.
static inline size_t shelf_curl_error_size(void) {
    return CURL_ERROR_SIZE;
}

// MARK: - curl_easy_setopt

static inline CURLcode shelf_curl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode shelf_curl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode shelf_curl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode shelf_curl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode shelf_curl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

/// For `CURLOPT_WRITEFUNCTION` and `CURLOPT_HEADERFUNCTION`, which share one signature.
static inline CURLcode shelf_curl_easy_setopt_write_callback(CURL *handle, CURLoption option, curl_write_callback value) {
    return curl_easy_setopt(handle, option, value);
}

// MARK: - curl_easy_getinfo

static inline CURLcode shelf_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode shelf_curl_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode shelf_curl_easy_getinfo_string(CURL *handle, CURLINFO info, char **value) {
    return curl_easy_getinfo(handle, info, value);
}

// MARK: - curl_multi_setopt

static inline CURLMcode shelf_curl_multi_setopt_long(CURLM *handle, CURLMoption option, long value) {
    return curl_multi_setopt(handle, option, value);
}

// MARK: - CURLMsg

/// The transfer's result of a `CURLMSG_DONE` message (a member of a C union).
static inline CURLcode shelf_curl_msg_result(const CURLMsg *message) {
    return message->data.result;
}

#endif
