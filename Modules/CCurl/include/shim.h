// CCurl: libcurl for Swift, loaded when the first transfer needs it.
//
// libcurl and the libraries it links (OpenSSL, GnuTLS, LDAP, SSH, Kerberos…) cost ~3 ms
// to load and relocate at every start of a process that links them, and most `shelf`
// commands read the local store only. So nothing here links libcurl: `shelf_curl_global_init`
// opens it with `dlopen` the first time a transport is made, and every call goes through
// the functions it found. Its headers still give the types and constants.
//
// libcurl's option setters are C variadic functions (`curl_easy_setopt(h, opt, ...)`),
// which Swift cannot call. Each wrapper below fixes the third argument to one type, the
// way swift-corelibs-foundation's CFURLSessionInterface.h does. Swift picks the wrapper
// that matches the option's documented argument type.
//
// Only `shelf_curl_global_init` loads the library. Before it succeeds, the functions that
// make handles return NULL and `shelf_curl_easy_strerror` says why; every other function
// takes a handle, so none can be reached.
#ifndef SHELF_CCURL_SHIM_H
#define SHELF_CCURL_SHIM_H

#include <curl/curl.h>

// MARK: - Global

/// Loads libcurl (once; later calls return the first result) and runs
/// `curl_global_init(CURL_GLOBAL_DEFAULT)`. `CURLE_FAILED_INIT` when the library or one
/// of its functions is missing: `shelf_curl_load_error` says which.
CURLcode shelf_curl_global_init(void);

/// Why libcurl could not be loaded; NULL when it was (or has not been tried).
const char *shelf_curl_load_error(void);

/// The size libcurl requires for a `CURLOPT_ERRORBUFFER` buffer.
static inline size_t shelf_curl_error_size(void) {
    return CURL_ERROR_SIZE;
}

// MARK: - Easy handles

CURL *shelf_curl_easy_init(void);
void shelf_curl_easy_reset(CURL *handle);
void shelf_curl_easy_cleanup(CURL *handle);
const char *shelf_curl_easy_strerror(CURLcode code);

CURLcode shelf_curl_easy_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode shelf_curl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value);
CURLcode shelf_curl_easy_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode shelf_curl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode shelf_curl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value);
/// For `CURLOPT_WRITEFUNCTION` and `CURLOPT_HEADERFUNCTION`, which share one signature.
CURLcode shelf_curl_easy_setopt_write_callback(CURL *handle, CURLoption option, curl_write_callback value);

CURLcode shelf_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value);
CURLcode shelf_curl_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value);
CURLcode shelf_curl_easy_getinfo_string(CURL *handle, CURLINFO info, char **value);

// MARK: - Header lists

struct curl_slist *shelf_curl_slist_append(struct curl_slist *list, const char *line);
void shelf_curl_slist_free_all(struct curl_slist *list);

// MARK: - Multi handles

CURLM *shelf_curl_multi_init(void);
CURLMcode shelf_curl_multi_cleanup(CURLM *handle);
CURLMcode shelf_curl_multi_setopt_long(CURLM *handle, CURLMoption option, long value);
CURLMcode shelf_curl_multi_add_handle(CURLM *handle, CURL *easy);
CURLMcode shelf_curl_multi_remove_handle(CURLM *handle, CURL *easy);
CURLMcode shelf_curl_multi_perform(CURLM *handle, int *running);
CURLMcode shelf_curl_multi_poll(CURLM *handle, struct curl_waitfd extra[], unsigned int count, int timeout, int *ready);
CURLMcode shelf_curl_multi_wakeup(CURLM *handle);
CURLMsg *shelf_curl_multi_info_read(CURLM *handle, int *queued);
const char *shelf_curl_multi_strerror(CURLMcode code);

// MARK: - CURLMsg

/// The transfer's result of a `CURLMSG_DONE` message (a member of a C union).
static inline CURLcode shelf_curl_msg_result(const CURLMsg *message) {
    return message->data.result;
}

#endif
