// Live preview while Shelf watches the content folder: one event stream per page; on each change
// the page is fetched again and swapped in when it differs, without a reload.
let source
const listen = () => {
    source = new EventSource(document.body.dataset.live)
    source.addEventListener('change', refresh)
}
let fetching = false
let again = false
const refresh = async () => {
    if (fetching) {
        again = true
        return
    }
    fetching = true
    try {
        const response = await fetch(location.href, {
            cache: 'no-cache',
            headers: { Accept: 'text/html' },
        })
        const fresh = new DOMParser().parseFromString(await response.text(), 'text/html')
        if (fresh.body.innerHTML !== document.body.innerHTML) {
            document.title = fresh.title
            document.body.replaceWith(document.adoptNode(fresh.body))
        }
    } catch {
        // The server is restarting: the next event brings the page.
    } finally {
        fetching = false
        if (again) {
            again = false
            void refresh()
        }
    }
}
listen()
// A page leaving closes its stream; one coming back from the back-forward cache opens it again and catches up.
addEventListener('pagehide', () => source.close())
addEventListener('pageshow', (event) => {
    if (!event.persisted) return
    listen()
    void refresh()
})
