import { Text } from '@sonolus/core'
import type { ContentType } from '../content/item-types.js'

/** The words of the pages themselves; content texts come localized from the catalog. */
const english = {
    home: 'Home',
    search: 'Search',
    searchPlaceholder: 'Search by title, artist or author',
    noResults: 'Nothing matches this search.',
    empty: 'Nothing here yet.',
    previous: 'Previous',
    next: 'Next',
    page: 'Page {0} of {1}',
    rating: 'Rating {0}',
    openInSonolus: 'Open in Sonolus',
    scanToOpen: 'On a computer, scan the code with your phone; on the phone, tap the button.',
    needsSonolusName: 'The Sonolus app opens only a copy exported with --name sonolus.',
    description: 'Description',
    tags: 'Tags',
    uses: 'Uses',
    sameAuthor: 'More by this author',
    comments: 'Comments',
    allComments: 'All comments ({0})',
    noComments: 'No comments yet.',
    leaderboards: 'Leaderboards',
    allRecords: 'All records',
    seeAll: 'See all',
    rank: 'Rank',
    player: 'Player',
    value: 'Result',
    preview: 'Preview',
    music: 'Music',
    soundsInApp: 'The sound effects are a zip archive: the app plays them.',
    enginePackage: 'Engine from the npm package {0}, version {1}',
    unlisted: 'Unlisted: only people with the link see this page.',
    draft: 'Draft: served only with --drafts.',
    problems: 'Problems',
    problemBanner: 'The content has a problem.',
    problemsBanner: 'The content has {0} problems.',
    seeProblems: 'See them',
    noProblems: 'No problems: every file reads cleanly.',
    problemsOwnerOnly:
        'The problems of the content are shown only to the owner (requests from this machine).',
    notFound: 'Not found',
    notFoundMessage:
        'There is nothing at this address. It may have been renamed, deleted or kept as a draft.',
    language: 'Language',
    items: '{0} items',
    defaultOf: "the engine's own",
    file: 'File',
    field: 'Field',
    message: 'Message',
} as const

export type UiText = { readonly [key in keyof typeof english]: string }

const japanese: UiText = {
    home: 'ホーム',
    search: '検索',
    searchPlaceholder: 'タイトル・アーティスト・作者で検索',
    noResults: 'この検索に合うものはありません。',
    empty: 'まだ何もありません。',
    previous: '前へ',
    next: '次へ',
    page: '{0} / {1} ページ',
    rating: '難易度 {0}',
    openInSonolus: 'Sonolus で開く',
    scanToOpen:
        'パソコンではスマートフォンでコードを読み取り、スマートフォンではボタンをタップしてください。',
    needsSonolusName: 'Sonolus アプリで開けるのは --name sonolus で書き出したコピーだけです。',
    description: '説明',
    tags: 'タグ',
    uses: '使用',
    sameAuthor: '同じ作者の作品',
    comments: 'コメント',
    allComments: 'すべてのコメント ({0})',
    noComments: 'まだコメントはありません。',
    leaderboards: 'ランキング',
    allRecords: 'すべての記録',
    seeAll: 'すべて見る',
    rank: '順位',
    player: 'プレイヤー',
    value: '結果',
    preview: 'プレビュー',
    music: '音楽',
    soundsInApp: '効果音は zip アーカイブです。アプリで再生されます。',
    enginePackage: 'npm パッケージ {0}（バージョン {1}）のエンジン',
    unlisted: '限定公開: リンクを知っている人だけが見られます。',
    draft: '下書き: --drafts のときだけ公開されます。',
    problems: '問題',
    problemBanner: 'コンテンツに問題が 1 件あります。',
    problemsBanner: 'コンテンツに {0} 件の問題があります。',
    seeProblems: '確認する',
    noProblems: '問題はありません。すべてのファイルを正しく読めました。',
    problemsOwnerOnly: 'コンテンツの問題はオーナー（このマシンからのアクセス）にだけ表示されます。',
    notFound: '見つかりません',
    notFoundMessage:
        'このアドレスには何もありません。名前が変わったか、削除されたか、下書きの可能性があります。',
    language: '言語',
    items: '{0} 件',
    defaultOf: 'エンジン既定',
    file: 'ファイル',
    field: 'フィールド',
    message: 'メッセージ',
}

const dictionaries: Record<string, UiText> = { en: english, ja: japanese }

export const uiText = (locale: string): UiText => dictionaries[locale] ?? english

/** `{0}` and `{1}` in a UI text, filled in. */
export const format = (text: string, ...values: (string | number)[]) =>
    text.replace(/\{(\d)\}/g, (_, index: string) => String(values[Number(index)] ?? ''))

/** `#SAME_AUTHOR` → "Same Author": the app's text keys, in the words of their names in @sonolus/core. */
const textKeyNames = new Map<string, string>(
    Object.entries(Text).map(([name, key]) => [key, name.replace(/([a-z0-9])([A-Z])/g, '$1 $2')]),
)

/** The shape of the app's text keys; `#1 · Arcade` (a record's rank tag) is words of its own. */
const textKey = /^#[A-Z][A-Z0-9_]*$/

/** A protocol text as a person reads it: a text key of the app in words, any other text as it is. */
export const readableText = (text: string) =>
    textKey.test(text)
        ? (textKeyNames.get(text) ?? text.slice(1).replace(/_/g, ' ').toLowerCase())
        : text

const typeNames: Record<string, Record<ContentType, string>> = {
    en: {
        post: 'Posts',
        playlist: 'Playlists',
        level: 'Levels',
        skin: 'Skins',
        background: 'Backgrounds',
        effect: 'Effects',
        particle: 'Particles',
        engine: 'Engines',
        replay: 'Replays',
    },
    ja: {
        post: '投稿',
        playlist: 'プレイリスト',
        level: 'レベル',
        skin: 'スキン',
        background: '背景',
        effect: '効果音',
        particle: 'パーティクル',
        engine: 'エンジン',
        replay: 'リプレイ',
    },
}

/** One item of a type, as a label (a level's "Engine"). */
const typeSingulars: Record<string, Record<ContentType, string>> = {
    en: {
        post: 'Post',
        playlist: 'Playlist',
        level: 'Level',
        skin: 'Skin',
        background: 'Background',
        effect: 'Effect',
        particle: 'Particle',
        engine: 'Engine',
        replay: 'Replay',
    },
    // Japanese names one item and many alike.
    ja: typeNames.ja!,
}

export const typeName = (type: ContentType, locale: string) =>
    (typeSingulars[locale] ?? typeSingulars.en!)[type]

/** A type's name, for its list and its tile when server.yaml gives it no title. */
export const typeTitle = (type: ContentType, locale: string) =>
    (typeNames[locale] ?? typeNames.en!)[type]
