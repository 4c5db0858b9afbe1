/**
 * The one PNG layout the generator and the test fixtures both write: 8-bit RGB, no interlace,
 * the whole image in a single IDAT chunk. Kept byte-stable: generated trees and fixture hashes
 * depend on every byte of it.
 */
import { crc32 } from 'node:zlib'

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
const IHDR_BYTES = 13

/** Length, type, data, then the CRC of type and data. */
function pngChunk(type: string, data: Buffer): Buffer {
    const chunk = Buffer.alloc(12 + data.length)
    chunk.writeUInt32BE(data.length, 0)
    chunk.write(type, 4, 'latin1')
    data.copy(chunk, 8)
    chunk.writeUInt32BE(crc32(chunk.subarray(4, 8 + data.length)), 8 + data.length)
    return chunk
}

/** Where `rgbPng`'s IDAT chunk starts, for callers that patch pixels in place. */
export const RGB_PNG_IDAT_OFFSET = SIGNATURE.length + 12 + IHDR_BYTES

/**
 * A `width`×`height` RGB PNG around `zlibStream`: the filtered rows (a filter byte, then three
 * bytes a pixel), already zlib-compressed, so callers choose how (the generator stores them).
 */
export function rgbPng(width: number, height: number, zlibStream: Buffer): Buffer {
    const header = Buffer.alloc(IHDR_BYTES)
    header.writeUInt32BE(width, 0)
    header.writeUInt32BE(height, 4)
    header[8] = 8 // bit depth
    header[9] = 2 // colour type: RGB
    return Buffer.concat([
        SIGNATURE,
        pngChunk('IHDR', header),
        pngChunk('IDAT', zlibStream),
        pngChunk('IEND', Buffer.alloc(0)),
    ])
}
