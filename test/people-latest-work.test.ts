/**
 * A person is shown by their latest work (its time, the name and handle they wrote it under),
 * kept as works come and go rather than found by a walk of all of them at each reload: the same
 * person whichever way it was reached, ties included. Among works of the same time the last in
 * the walk's order wins: items by type, in the order the person's first item of each type came,
 * each type's in the order they came, then comments.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { CommentRecord } from '../src/content/comment-file.js'
import { contentTypes, type ContentType } from '../src/content/item-types.js'
import type { ItemRecord } from '../src/content/load.js'
import { People, type ItemChanges } from '../src/people/people.js'

const test = suite('people: the latest work')

const author = 'Alice'
const person = 'alice'

/** An item by Alice, told apart by the handle it carries. */
const item = (
    type: ContentType,
    handle: string,
    time: number | undefined,
    comments: CommentRecord[] = [],
) =>
    ({
        type,
        name: `${type}-${handle}`,
        file: `${type}s/${handle}/item.json`,
        fields: { title: handle, author, authorHandle: handle, time },
        resources: {},
        comments,
        leaderboards: [],
    }) as unknown as ItemRecord

const comment = (handle: string, time: number): CommentRecord => ({
    name: `${handle}.md`,
    file: `comments/${handle}.md`,
    author,
    authorHandle: handle,
    time,
    content: 'hi',
})

const noChanges = (): ItemChanges =>
    Object.fromEntries(contentTypes.map((type) => [type, []])) as unknown as ItemChanges

/** People after each of these changes, one reload each. */
const after = (
    people: People,
    ...steps: [ContentType, ItemRecord | undefined, ItemRecord | undefined][]
) => {
    for (const [type, before, next] of steps) {
        const changes = noChanges()
        ;(changes[type] as { before?: ItemRecord; after?: ItemRecord }[]).push({
            before,
            after: next,
        })
        people = people.update(changes, { get: () => undefined }, [], 'en')
    }
    return people
}

const shown = (people: People) => {
    const found = people.get(person)
    return found && { handle: found.handle, lastActive: found.lastActive }
}

test('the latest time wins, whatever came last', () => {
    const people = after(
        People.empty(),
        ['level', undefined, item('level', 'a', 300)],
        ['level', undefined, item('level', 'b', 100)],
        ['skin', undefined, item('skin', 'c', 200)],
    )
    assert.equal(shown(people), { handle: 'a', lastActive: 300 })
})

test('among equal times: the item that came last of its type, the type that came last, then a comment', () => {
    const levels = after(
        People.empty(),
        ['level', undefined, item('level', 'a', undefined)],
        ['level', undefined, item('level', 'b', undefined)],
    )
    assert.equal(shown(levels), { handle: 'b', lastActive: 0 })
    const skin = after(levels, ['skin', undefined, item('skin', 'c', undefined)])
    assert.equal(shown(skin), { handle: 'c', lastActive: 0 })
    // Levels came before skins to Alice: a level of the same time does not outrank the skin.
    const level = after(skin, ['level', undefined, item('level', 'd', undefined)])
    assert.equal(shown(level), { handle: 'c', lastActive: 0 })
    const commented = after(level, ['level', undefined, item('level', 'e', 0, [comment('f', 0)])])
    assert.equal(shown(commented), { handle: 'f', lastActive: 0 })
})

test('an edit of the latest work keeps it the latest at the same time; at an earlier time, the one before takes over', () => {
    // People share their works with the next: each history is made from nothing.
    const twoLevels = () => {
        const b = item('level', 'b', 100)
        const people = after(
            People.empty(),
            ['level', undefined, item('level', 'a', 100)],
            ['level', undefined, b],
        )
        return { people, b }
    }
    const same = twoLevels()
    assert.equal(shown(after(same.people, ['level', same.b, item('level', 'b2', 100)])), {
        handle: 'b2',
        lastActive: 100,
    })
    const earlier = twoLevels()
    assert.equal(shown(after(earlier.people, ['level', earlier.b, item('level', 'b3', 50)])), {
        handle: 'a',
        lastActive: 100,
    })
})

test('taking out the latest work shows the one before it; taking out every work ends the person', () => {
    const a = item('level', 'a', 100)
    const b = item('skin', 'b', 100)
    const c = item('level', 'c', 300)
    let people = after(
        People.empty(),
        ['level', undefined, a],
        ['skin', undefined, b],
        ['level', undefined, c],
    )
    assert.equal(shown(people), { handle: 'c', lastActive: 300 })
    people = after(people, ['level', c, undefined])
    assert.equal(shown(people), { handle: 'b', lastActive: 100 })
    people = after(people, ['skin', b, undefined], ['level', a, undefined])
    assert.equal(shown(people), undefined)
    people = after(people, ['level', undefined, item('level', 'g', 5)])
    assert.equal(shown(people), { handle: 'g', lastActive: 5 })
})

test('a work that comes after the latest was taken out and outranks it is the latest at once', () => {
    const a = item('level', 'a', 100)
    const b = item('level', 'b', 200)
    let people = after(People.empty(), ['level', undefined, a], ['level', undefined, b])
    // In one reload: the latest goes, an earlier one comes, then a later one.
    const changes = noChanges()
    changes.level = [
        { before: b, after: undefined },
        { before: undefined, after: item('level', 'c', 150) },
        { before: undefined, after: item('level', 'd', 200) },
    ]
    people = people.update(changes, { get: () => undefined }, [], 'en')
    assert.equal(shown(people), { handle: 'd', lastActive: 200 })
})

test.run()
