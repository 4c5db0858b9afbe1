/**
 * Headers an answer carries wherever it is served from: by the server itself, or by the static
 * host a `shelf export` is copied to (its nginx.conf and _headers say the same).
 */

/** The bytes behind a hash never change: a client may keep them a year without asking again. */
export const cachedForSeconds = 365 * 24 * 60 * 60
/** What never changes at its address (a resource by hash, a versioned asset): cached for a year. */
export const immutableCacheControl = `public, max-age=${cachedForSeconds}, immutable`

/**
 * Pages for people at `/`: nothing is sent to the browser that could run but the one script file,
 * and no style but the stylesheet, whatever the content holds.
 */
export const contentSecurityPolicy = [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' https: http:",
    "media-src 'self' https: http:",
    "connect-src 'self'",
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
].join('; ')

/** The headers of every page, live and exported alike. */
export const pageSecurityHeaders: [string, string][] = [
    ['Content-Security-Policy', contentSecurityPolicy],
    ['X-Content-Type-Options', 'nosniff'],
    ['Referrer-Policy', 'strict-origin-when-cross-origin'],
]
