// CCurl: libcurl opened with dlopen on first use (see shim.h for why).
#include "shim.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

// MARK: - The functions found

// NB: each pointer's type is the declaration's own (`__typeof__` of curl.h's function),
// so a call through it is exactly the call the header describes.
#define SHELF_CURL_FUNCTIONS(X) \
    X(curl_global_init) \
    X(curl_easy_init) \
    X(curl_easy_reset) \
    X(curl_easy_cleanup) \
    X(curl_easy_strerror) \
    X(curl_easy_setopt) \
    X(curl_easy_getinfo) \
    X(curl_slist_append) \
    X(curl_slist_free_all) \
    X(curl_multi_init) \
    X(curl_multi_cleanup) \
    X(curl_multi_setopt) \
    X(curl_multi_add_handle) \
    X(curl_multi_remove_handle) \
    X(curl_multi_perform) \
    X(curl_multi_poll) \
    X(curl_multi_wakeup) \
    X(curl_multi_info_read) \
    X(curl_multi_strerror)

static struct {
#define SHELF_CURL_FIELD(name) __typeof__(name) *name;
    SHELF_CURL_FUNCTIONS(SHELF_CURL_FIELD)
#undef SHELF_CURL_FIELD
} api;

/// Set once, by `load` under `pthread_once`; read-only afterwards.
static int loaded;
static CURLcode initialized = CURLE_FAILED_INIT;
static char load_error[256];
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

/// The soname of libcurl's ABI, stable since 2006 (libcurl4).
static const char *const library = "libcurl.so.4";

static void load(void) {
    void *handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        const char *reason = dlerror();
        snprintf(load_error, sizeof load_error, "could not load %s: %s", library, reason ? reason : "unknown error");
        return;
    }
#define SHELF_CURL_LOOKUP(name) \
    api.name = (__typeof__(name) *)dlsym(handle, #name); \
    if (api.name == NULL) { \
        snprintf(load_error, sizeof load_error, "%s has no %s (libcurl 7.68 or later is needed)", library, #name); \
        return; \
    }
    SHELF_CURL_FUNCTIONS(SHELF_CURL_LOOKUP)
#undef SHELF_CURL_LOOKUP
    // NB: the handle stays open for the life of the process, as a linked library would.
    initialized = api.curl_global_init(CURL_GLOBAL_DEFAULT);
    if (initialized != CURLE_OK) {
        snprintf(load_error, sizeof load_error, "curl_global_init failed: %d", (int)initialized);
        return;
    }
    loaded = 1;
}

// MARK: - Global

CURLcode shelf_curl_global_init(void) {
    pthread_once(&load_once, load);
    return loaded ? CURLE_OK : (initialized == CURLE_OK ? CURLE_FAILED_INIT : initialized);
}

const char *shelf_curl_load_error(void) {
    return load_error[0] != 0 ? load_error : NULL;
}

// MARK: - Easy handles

CURL *shelf_curl_easy_init(void) {
    return loaded ? api.curl_easy_init() : NULL;
}

void shelf_curl_easy_reset(CURL *handle) {
    api.curl_easy_reset(handle);
}

void shelf_curl_easy_cleanup(CURL *handle) {
    api.curl_easy_cleanup(handle);
}

const char *shelf_curl_easy_strerror(CURLcode code) {
    return loaded ? api.curl_easy_strerror(code) : "libcurl is not loaded";
}

CURLcode shelf_curl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return api.curl_easy_setopt(handle, option, value);
}

CURLcode shelf_curl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return api.curl_easy_setopt(handle, option, value);
}

CURLcode shelf_curl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return api.curl_easy_setopt(handle, option, value);
}

CURLcode shelf_curl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return api.curl_easy_setopt(handle, option, value);
}

CURLcode shelf_curl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return api.curl_easy_setopt(handle, option, value);
}

CURLcode shelf_curl_easy_setopt_write_callback(CURL *handle, CURLoption option, curl_write_callback value) {
    return api.curl_easy_setopt(handle, option, value);
}

CURLcode shelf_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return api.curl_easy_getinfo(handle, info, value);
}

CURLcode shelf_curl_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
    return api.curl_easy_getinfo(handle, info, value);
}

CURLcode shelf_curl_easy_getinfo_string(CURL *handle, CURLINFO info, char **value) {
    return api.curl_easy_getinfo(handle, info, value);
}

// MARK: - Header lists

struct curl_slist *shelf_curl_slist_append(struct curl_slist *list, const char *line) {
    return loaded ? api.curl_slist_append(list, line) : NULL;
}

void shelf_curl_slist_free_all(struct curl_slist *list) {
    if (list != NULL) api.curl_slist_free_all(list);
}

// MARK: - Multi handles

CURLM *shelf_curl_multi_init(void) {
    return loaded ? api.curl_multi_init() : NULL;
}

CURLMcode shelf_curl_multi_cleanup(CURLM *handle) {
    return api.curl_multi_cleanup(handle);
}

CURLMcode shelf_curl_multi_setopt_long(CURLM *handle, CURLMoption option, long value) {
    return api.curl_multi_setopt(handle, option, value);
}

CURLMcode shelf_curl_multi_add_handle(CURLM *handle, CURL *easy) {
    return api.curl_multi_add_handle(handle, easy);
}

CURLMcode shelf_curl_multi_remove_handle(CURLM *handle, CURL *easy) {
    return api.curl_multi_remove_handle(handle, easy);
}

CURLMcode shelf_curl_multi_perform(CURLM *handle, int *running) {
    return api.curl_multi_perform(handle, running);
}

CURLMcode shelf_curl_multi_poll(CURLM *handle, struct curl_waitfd extra[], unsigned int count, int timeout, int *ready) {
    return api.curl_multi_poll(handle, extra, count, timeout, ready);
}

CURLMcode shelf_curl_multi_wakeup(CURLM *handle) {
    return api.curl_multi_wakeup(handle);
}

CURLMsg *shelf_curl_multi_info_read(CURLM *handle, int *queued) {
    return api.curl_multi_info_read(handle, queued);
}

const char *shelf_curl_multi_strerror(CURLMcode code) {
    return loaded ? api.curl_multi_strerror(code) : "libcurl is not loaded";
}
