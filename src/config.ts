/** Everything `shelf serve` can be told, after the command line is parsed. */
export type ShelfOptions = {
    /** The content folder. */
    content: string
    /** Protocol name: path prefix `/{name}/…` and header prefix `{Name}-…`. */
    name: string
    /** The public address written into every item's `source`; when absent, the request's origin. */
    address?: string
    /** Serve items marked `draft: true`. */
    drafts: boolean
    /** Where Shelf keeps processed resources; defaults to `.shelf` inside the content folder. */
    cache?: string
    /** Follow changes of the folder while serving. */
    watch?: boolean
}

/** `service` → `Service`: header names are the protocol name, capitalized. */
export const headerPrefix = (name: string) => name.charAt(0).toUpperCase() + name.slice(1)
