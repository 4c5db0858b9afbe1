/**
 * Whether a JSON file already holds what `JSON.stringify(JSON.parse(file))` would give back, so
 * that Shelf can gzip its bytes as they are instead of parsing and writing again what they say:
 * pack trees' charts are minified already, and parsing them was a third of a cold start's
 * compression work (tens of MB of small objects made only to be written back out). Strict: any
 * doubt (whitespace inside, an unusual escape or number, a duplicate or numeric key, deep
 * nesting) answers no, and the file is parsed and minified as before, which reports its errors.
 */
import { isUtf8 } from 'node:buffer'

/** The bytes minified JSON would be, without the whitespace around them; undefined when unsure. */
export const canonicalJson = (bytes: Buffer): Buffer | undefined => {
    let start = 0
    let end = bytes.length
    while (start < end && isSpace(bytes[start]!)) start++
    while (end > start && isSpace(bytes[end - 1]!)) end--
    const scan = new Scan(bytes, start, end)
    if (!scan.value(0) || scan.at !== end || !scan.numbersHold()) return undefined
    if (scan.nonAscii && !isUtf8(bytes.subarray(start, end))) return undefined
    return bytes.subarray(start, end)
}

const isSpace = (byte: number) => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09

const quote = 0x22
const backslash = 0x5c
const comma = 0x2c
const colon = 0x3a
const minus = 0x2d
const dot = 0x2e
const zero = 0x30
const nine = 0x39

/** Deeper than this, JSON.parse and JSON.stringify may run out of stack: left to them. */
const maxDepth = 256
/** Keys of one object compared with each other for duplicates; more are left to JSON.parse. */
const maxKeys = 64

/** Escapes JSON.stringify writes as such: `\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`. */
const shortEscapes = new Set([quote, backslash, 0x62, 0x66, 0x6e, 0x72, 0x74])
/** Control characters JSON.stringify writes as short escapes, not `\u00XX`. */
const shortlyEscaped = new Set([0x08, 0x09, 0x0a, 0x0c, 0x0d])

const isDigit = (byte: number) => byte >= zero && byte <= nine
const isLowerHex = (byte: number) => isDigit(byte) || (byte >= 0x61 && byte <= 0x66)

class Scan {
    at: number
    nonAscii = false
    /**
     * The start and length of each key of the objects being read, the innermost last, up to
     * `keyEnd`: the array is kept at its longest (cutting an array's length is a call into V8's
     * runtime, which charts of hundreds of thousands of small objects paid once per object).
     */
    private readonly keys: number[] = []
    private keyEnd = 0
    /** Where each number lies that only being written back can tell about: its start and end. */
    private readonly unsure: number[] = []

    constructor(
        private readonly bytes: Buffer,
        start: number,
        private readonly end: number,
    ) {
        this.at = start
    }

    value(depth: number): boolean {
        const byte = this.bytes[this.at]
        if (byte === quote) return this.string() >= 0
        if (byte === 0x7b) return depth < maxDepth && this.object(depth + 1)
        if (byte === 0x5b) return depth < maxDepth && this.array(depth + 1)
        if (byte === minus || (byte !== undefined && isDigit(byte))) return this.number()
        return this.word('true') || this.word('false') || this.word('null')
    }

    private word(word: string) {
        for (let index = 0; index < word.length; index++)
            if (this.bytes[this.at + index] !== word.charCodeAt(index)) return false
        this.at += word.length
        return true
    }

    private array(depth: number) {
        this.at++
        if (this.bytes[this.at] === 0x5d) return ++this.at > 0
        for (;;) {
            if (!this.value(depth)) return false
            const next = this.bytes[this.at++]
            if (next === 0x5d) return true
            if (next !== comma) return false
        }
    }

    private object(depth: number) {
        this.at++
        if (this.bytes[this.at] === 0x7d) return ++this.at > 0
        const first = this.keyEnd
        for (;;) {
            const key = this.at
            if (this.bytes[key] !== quote) return false
            const length = this.string()
            if (length < 0 || !this.isPlainKey(key, length, first)) return false
            this.keys[this.keyEnd++] = key
            this.keys[this.keyEnd++] = length
            if (this.bytes[this.at++] !== colon || !this.value(depth)) return false
            const next = this.bytes[this.at++]
            if (next === 0x7d) {
                this.keyEnd = first
                return true
            }
            if (next !== comma) return false
        }
    }

    /**
     * A key JSON.stringify writes back where it was, once: not one already given (JSON.parse keeps
     * the last), nor all digits (V8 puts integer keys first).
     */
    private isPlainKey(key: number, length: number, first: number) {
        const keys = this.keys
        const end = this.keyEnd
        if (end - first >= 2 * maxKeys) return false
        const bytes = this.bytes
        let digits = 0
        while (digits < length - 2 && isDigit(bytes[key + 1 + digits]!)) digits++
        if (length > 2 && digits === length - 2) return false
        for (let index = first; index < end; index += 2) {
            if (keys[index + 1] !== length) continue
            const other = keys[index]!
            let same = 1
            while (same < length && bytes[key + same] === bytes[other + same]) same++
            if (same === length) return false
        }
        return true
    }

    /** Past a string written as JSON.stringify writes it; its length with quotes, or -1. */
    private string() {
        const bytes = this.bytes
        const start = this.at
        let at = start + 1
        for (;;) {
            if (at >= this.end) return -1
            const byte = bytes[at]!
            if (byte === quote) break
            if (byte < 0x20) return -1
            if (byte >= 0x80) this.nonAscii = true
            else if (byte === backslash) {
                const escaped = bytes[at + 1]!
                if (escaped === 0x75) {
                    // Only control characters without a short escape are written \u00XX (lowercase).
                    if (bytes[at + 2] !== zero || bytes[at + 3] !== zero) return -1
                    const high = bytes[at + 4]!
                    const low = bytes[at + 5]!
                    if ((high !== zero && high !== 0x31) || !isLowerHex(low)) return -1
                    const code = (high - zero) * 16 + (isDigit(low) ? low - zero : low - 0x57)
                    if (shortlyEscaped.has(code)) return -1
                    at += 6
                    continue
                }
                if (!shortEscapes.has(escaped)) return -1
                at += 2
                continue
            }
            at++
        }
        this.at = at + 1
        return this.at - start
    }

    /**
     * Past a number written as JavaScript writes it. Plain decimals of at most 15 significant
     * digits are (a double tells such decimals apart, so the shortest one giving it back is
     * the decimal itself) when they have no superfluous zero and are not so small that they
     * are written with an exponent; any other is written back and compared.
     */
    private number() {
        const bytes = this.bytes
        const start = this.at
        let at = start
        if (bytes[at] === minus) at++
        const whole = at
        if (bytes[at] === zero) at++
        else while (isDigit(bytes[at]!)) at++
        const wholeDigits = at - whole
        if (wholeDigits === 0) return false
        let fraction = 0
        let leadingZeros = 0
        if (bytes[at] === dot) {
            at++
            const first = at
            while (isDigit(bytes[at]!)) at++
            fraction = at - first
            if (fraction === 0) return false
            while (leadingZeros < fraction && bytes[first + leadingZeros] === zero) leadingZeros++
        }
        const exponent = bytes[at] === 0x65 || bytes[at] === 0x45
        if (exponent) {
            at++
            if (bytes[at] === 0x2b || bytes[at] === minus) at++
            const first = at
            while (isDigit(bytes[at]!)) at++
            if (at === first) return false
        }
        this.at = at
        const zeroWhole = wholeDigits === 1 && bytes[whole] === zero
        const significant = (zeroWhole ? 0 : wholeDigits) + fraction
        const plain =
            !exponent &&
            significant <= 15 &&
            (fraction === 0
                ? !zeroWhole || whole === start
                : bytes[at - 1] !== zero && (!zeroWhole || leadingZeros <= 5))
        if (!plain) this.unsure.push(start, at)
        return true
    }

    /**
     * Whether the numbers left unsure are written as JavaScript writes them: all at once, as one
     * array parsed and written back (a chart of megabytes has tens of thousands, and a string
     * made, parsed and written for each was half of this scan's time).
     */
    numbersHold() {
        const unsure = this.unsure
        if (!unsure.length) return true
        const text = this.bytes.toString('latin1')
        const numbers: string[] = []
        for (let index = 0; index < unsure.length; index += 2)
            numbers.push(text.slice(unsure[index], unsure[index + 1]))
        const list = `[${numbers.join(',')}]`
        return JSON.stringify(JSON.parse(list)) === list
    }
}
