import { contentTypeInfos } from '../../../../../content/item-types.js'
import { generatedName } from '../../../../../writes/content-writer.js'
import { recordFromValues } from '../../../../../writes/item-files.js'
import { createPlayerItem } from '../../../../../writes/new-items.js'
import { HttpError, notFound } from '../../../../http-error.js'
import type { ShelfHandler } from '../../../../request-state.js'
import { answerSubmit, countWrite, readSubmission, type Writes } from '../../../../submissions.js'

const sha1Hex = /^[0-9a-f]{40}$/

/** The parts of the submitted replay Shelf reads; the rest is the app's summary, kept as text. */
type SubmittedReplay = {
    title?: unknown
    subtitle?: unknown
    level?: { name?: unknown }
    data?: { hash?: unknown }
    configuration?: { hash?: unknown }
}

/** Display text from the app, bounded: it becomes a field of a file in the folder. */
const summary = (value: unknown) => (typeof value === 'string' ? value.slice(0, 200) : '')

/**
 * E4 `POST /{name}/levels/result/submit`: a result from the result screen becomes a replay of
 * the level, `replays/<name>/` with the replay's data and configuration as the app recorded them.
 */
export const postLevelResult =
    (writes: Writes): ShelfHandler =>
    async (ctx) => {
        const { catalog } = ctx.state.shelf
        const submission = await readSubmission(ctx, catalog.settings.types.level.results, 'result')
        const replay = submission.body.replay as SubmittedReplay | undefined
        const hashes = [replay?.data?.hash, replay?.configuration?.hash]
        if (
            !replay ||
            typeof replay.level?.name !== 'string' ||
            !hashes.every((hash) => typeof hash === 'string' && sha1Hex.test(hash))
        ) {
            throw new HttpError(
                400,
                '"replay" must be the ReplayItem of the play: its level, and its data and configuration with their SHA-1 hashes',
            )
        }
        const levelName = replay.level.name
        if (!catalog.get('level', levelName)) notFound(`level "${levelName}" is not on this server`)
        const [dataHash, configurationHash] = hashes as [string, string]
        const { user } = submission
        countWrite(ctx, writes, 'results', user)
        const name = generatedName()
        const did = `recorded a replay of levels/${levelName} as ${contentTypeInfos.replay.plural}/${name}`
        await answerSubmit(
            ctx,
            writes,
            { user, did },
            [{ hash: dataHash }, { hash: configurationHash }],
            async (uploaded) => {
                const files = {
                    data: uploaded.get(dataHash)!,
                    configuration: uploaded.get(configurationHash)!,
                }
                for (const [role, bytes] of Object.entries(files)) {
                    if (bytes[0] !== 0x1f || bytes[1] !== 0x8b)
                        throw new HttpError(
                            400,
                            `the replay's ${role} must be gzip-compressed JSON, as the app records it`,
                        )
                }
                const { record } = recordFromValues('replay', submission.values)
                const fields = {
                    title: summary(replay.title) || user.name,
                    subtitle: summary(replay.subtitle),
                    author: user.name,
                    ...record,
                    authorId: user.id,
                    time: new Date().toISOString(),
                    level: levelName,
                }
                // Extensionless files are served as they are: the app's own gzip bytes, under the hashes it knows.
                await createPlayerItem(writes, 'replay', name, user, fields, files)
                return {}
            },
        )
    }
