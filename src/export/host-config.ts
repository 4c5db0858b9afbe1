import { contentTypeInfos, contentTypes } from '../content/item-types.js'
import { quickSearchRefusal } from '../answers/request-view.js'
import { immutableCacheControl, pageSecurityHeaders } from '../answers/served-headers.js'
import { assetsPrefix } from '../web/assets.js'
import { beyondLastPage } from './answer-files.js'

export type HostSettings = {
    name: string
    /** The `{Name}-Version` header and its value. */
    versionHeader: string
    version: string
}

/** JSON answers change with the content: a minute keeps a CDN useful and an edit visible soon after a deploy. */
export const answerMaxAgeSeconds = 60
const answerCacheControl = `public, max-age=${answerMaxAgeSeconds}`
/** A web page's file type, as the live server sends it. */
const pageContentType = 'text/html; charset=utf-8'

/** The quick search's refusal, byte for byte the live server's. */
const refusalBody = JSON.stringify({ message: quickSearchRefusal })

/**
 * Directives to include inside an nginx `server` block whose root is OUT/public. A request path
 * is a folder of answers (see answer-files.ts): `page` and `cursor` pick the file, a page past the
 * end gets the empty last page, and a quick search (`keywords`) is refused as the live server
 * refuses it in export mode. Every other query parameter is ignored, as it is there.
 */
export const nginxConfig = ({
    name,
    versionHeader,
    version,
}: HostSettings) => `# Written by \`shelf export\`: include this inside a server block whose root is this export's public/ folder.
# It sets neither listen nor root.

set $shelf_page page-0;
if ($arg_page ~ "^0*([0-9]{1,9})$") {
    set $shelf_page page-$1;
}
set $shelf_cursor page-none;
if ($arg_cursor ~ "^[A-Za-z0-9_-]{1,200}$") {
    set $shelf_cursor cursor-$arg_cursor;
}
set $shelf_asset_cache no-cache;
if ($arg_v != "") {
    set $shelf_asset_cache "${immutableCacheControl}";
}

# The web pages: a folder per path, the page or cursor picking the file (a page that is not a list has only its first).
location / {
    types { }
    default_type text/html;
    charset utf-8;
    add_header Cache-Control "${answerCacheControl}" always;
${pageSecurityHeaders.map(([header, value]) => `    add_header ${header} "${value}" always;`).join('\n')}
    gzip on;
    try_files $uri/$shelf_cursor.html $uri/$shelf_page.html $uri/page-0.html =404;
}

# The pages' stylesheet and icon: kept for good when the link names their version.
location ${assetsPrefix}/ {
    types {
        text/css css;
        text/javascript js;
        image/svg+xml svg;
    }
    charset utf-8;
    charset_types text/css text/javascript;
    add_header Cache-Control $shelf_asset_cache;
    add_header X-Content-Type-Options nosniff;
    gzip on;
    gzip_types text/css text/javascript image/svg+xml;
    try_files $uri =404;
}

location /${name}/ {
    types { }
    default_type application/json;
    charset utf-8;
    charset_types application/json;
    add_header ${versionHeader} ${version} always;
    add_header Cache-Control "${answerCacheControl}" always;
    gzip on;
    gzip_types application/json;
    error_page 404 = @${name}_not_found;
    if ($arg_keywords != "") {
        return 404 '${refusalBody}';
    }
    try_files $uri/$shelf_cursor.json $uri/$shelf_page.json $uri/${beyondLastPage}.json $uri/index.json =404;
}

location /${name}/repository/ {
    types { }
    default_type application/octet-stream;
    add_header ${versionHeader} ${version} always;
    add_header Cache-Control "${immutableCacheControl}";
    error_page 404 = @${name}_not_found;
    if ($arg_keywords != "") {
        return 404 '${refusalBody}';
    }
    try_files $uri =404;
}

location @${name}_not_found {
    types { }
    default_type application/json;
    charset utf-8;
    charset_types application/json;
    add_header ${versionHeader} ${version} always;
    add_header Cache-Control "no-cache" always;
    return 404 '{"message":"not found in this static copy of the server"}';
}
`

/** The list paths of the protocol, as path patterns of Netlify's _redirects (placeholders `:x`). */
const listPatterns = (name: string) => [
    `/${name}/:type/list`,
    `/${name}/:type/:item/community/comments/list`,
    `/${name}/:type/:item/leaderboards/:board/records/list`,
]

/**
 * Netlify's _redirects: rewrites (status 200) from a request path, and its `page` or `cursor`,
 * to the file of its answer. Resources need none: a file at the path itself is served first. Cloudflare Pages reads the same file but not the query conditions:
 * there every page of a list answers its first page (README, "Deploying a static copy").
 */
export const redirectsFile = ({ name }: HostSettings) =>
    [
        '# Written by `shelf export`: the request path (and page or cursor) to the file of its answer.',
        ...listPatterns(name).flatMap((pattern) => [
            `${pattern}  cursor=:cursor  ${pattern}/cursor-:cursor.json  200`,
            `${pattern}  page=:page  ${pattern}/page-:page.json  200`,
            `${pattern}  ${pattern}/page-0.json  200`,
        ]),
        `/${name}/*  /${name}/:splat/index.json  200`,
        '/  /page-0.html  200',
        ...pagedPagePatterns.flatMap((pattern) => [
            `${pattern}  cursor=:cursor  ${pattern}/cursor-:cursor.html  200`,
            `${pattern}  page=:page  ${pattern}/page-:page.html  200`,
        ]),
        '/*  /:splat/page-0.html  200',
        '',
    ].join('\n')

/** The web pages that are paged, as path patterns of _redirects. */
const pagedPagePatterns = [
    '/:type/list',
    '/:type/:item/community/comments/list',
    '/:type/:item/leaderboards/:board',
]

/** Netlify's and Cloudflare Pages' _headers; one rule per path pattern, so no header is set twice (the pages' `/levels/*` is not the protocol's `/{name}/levels/*`). */
export const headersFile = ({ name, versionHeader, version }: HostSettings) =>
    [
        '# Written by `shelf export`.',
        ...[
            `/${name}/info/*`,
            `/${name}/info`,
            ...contentTypes.flatMap((type) => [`/${name}/${contentTypeInfos[type].plural}/*`]),
        ].flatMap((pattern) => [
            pattern,
            `  ${versionHeader}: ${version}`,
            '  Content-Type: application/json; charset=utf-8',
            `  Cache-Control: ${answerCacheControl}`,
        ]),
        `/${name}/repository/*`,
        `  ${versionHeader}: ${version}`,
        '  Content-Type: application/octet-stream',
        `  Cache-Control: ${immutableCacheControl}`,
        ...['/', ...contentTypes.map((type) => `/${contentTypeInfos[type].plural}/*`)].flatMap(
            (pattern) => [
                pattern,
                `  Content-Type: ${pageContentType}`,
                `  Cache-Control: ${answerCacheControl}`,
                ...pageSecurityHeaders.map(([header, value]) => `  ${header}: ${value}`),
            ],
        ),
        // The host cannot tell a versioned link from another here: the short lifetime of a page.
        `${assetsPrefix}/*`,
        `  Cache-Control: ${answerCacheControl}`,
        '  X-Content-Type-Options: nosniff',
        '',
    ].join('\n')
