// Live preview while Shelf watches the content folder: one event stream per page; on each change
// the page is fetched again and swapped in when it differs, without a reload.
const source = new EventSource(document.body.dataset.live)
let fetching = false
let again = false
const refresh = async () => {
    if (fetching) {
        again = true
        return
    }
    fetching = true
    try {
        const response = await fetch(location.href, { cache: 'no-cache', headers: { Accept: 'text/html' } })
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
source.addEventListener('change', refresh)
addEventListener('pagehide', () => source.close())
