// SIMD kernels. They keep the 8-bit samples packed in wider lanes and add them in place (SWAR): masking out every
// other byte leaves 16-bit slots wide enough for a sum of four samples (≤ 1020), so no byte shuffles are needed —
// baseline x86-64 (SSE2) has none. The lane layouts assume a little-endian load, hence the `#if`.
#if _endian(little)
    extension Downsample {
        /// Gray, 16 output pixels per step: each 16-bit lane holds a horizontal pair of samples.
        static func vectorGray(_ t: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, pairs: Int, into o: UnsafeMutablePointer<UInt8>) {
            var i = 0
            let low = SIMD16<UInt16>(repeating: 0x00FF)
            while i &+ 16 <= pairs {
                let x = load(t, 2 &* i, as: SIMD16<UInt16>.self)
                let y = load(b, 2 &* i, as: SIMD16<UInt16>.self)
                let sum = (x & low) &+ (x &>> 8) &+ (y & low) &+ (y &>> 8) &+ 2
                store(SIMD16<UInt8>(truncatingIfNeeded: sum &>> 2), o, i)
                i &+= 16
            }
            scalarGray(t + 2 &* i, b + 2 &* i, pairs: pairs &- i, into: o + i)
        }

        /// Gray+alpha, 8 output pixels per step: each 32-bit lane holds a horizontal pair `g0 a0 g1 a1`.
        /// Blocks whose four alphas differ are redone by the scalar weighted path.
        static func vectorGrayAlpha(_ t: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, pairs: Int, into o: UnsafeMutablePointer<UInt8>) {
            var i = 0
            let even = SIMD8<UInt32>(repeating: 0x00FF_00FF)
            let slot = SIMD8<UInt32>(repeating: 0xFFFF)
            let alphaMask = SIMD8<UInt32>(repeating: 0xFF00)
            while i &+ 8 <= pairs {
                let x = load(t, 4 &* i, as: SIMD8<UInt32>.self)
                let y = load(b, 4 &* i, as: SIMD8<UInt32>.self)
                let gray = (x & even) &+ (y & even)
                let alpha = ((x &>> 8) & even) &+ ((y &>> 8) & even)
                let g = ((gray & slot) &+ (gray &>> 16) &+ 2) &>> 2
                let a = ((alpha & slot) &+ (alpha &>> 16) &+ 2) &>> 2
                store(SIMD8<UInt16>(truncatingIfNeeded: g | (a &<< 8)), o, 2 &* i)
                // Byte 1 of each lane is a0; compare it with a1 (>> 16), a2 (y) and a3 (y >> 16).
                let differ = ((x ^ (x &>> 16)) | (x ^ y) | (x ^ (y &>> 16))) & alphaMask
                if differ != .zero {
                    for lane in 0..<8 where differ[lane] != 0 {
                        let p = i &+ lane
                        scalarGrayAlpha(t + 4 &* p, b + 4 &* p, pairs: 1, into: o + 2 &* p)
                    }
                }
                i &+= 8
            }
            scalarGrayAlpha(t + 4 &* i, b + 4 &* i, pairs: pairs &- i, into: o + 2 &* i)
        }

        /// RGB, 4 output pixels per step: each 64-bit lane holds one horizontal pair `r0 g0 b0 r1 g1 b1 · ·`.
        ///
        /// Masking even bytes gives 16-bit slots `r0 b0 g1`, odd bytes `g0 r1 b1`; shifting one set by a slot
        /// lines up `r0+r1`, `b0+b1` and `g0+g1`.
        static func vectorRGB(_ t: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, pairs: Int, into o: UnsafeMutablePointer<UInt8>) {
            var i = 0
            let even = SIMD4<UInt64>(repeating: 0x00FF_00FF_00FF)
            let byte = SIMD4<UInt64>(repeating: 0xFF)
            // `<` not `<=`: the 8-byte loads and 4-byte stores reach 2 and 1 bytes past the last pair of a step.
            while i &+ 4 < pairs {
                let j = 6 &* i
                let x = SIMD4<UInt64>(load(t, j, as: UInt64.self), load(t, j &+ 6), load(t, j &+ 12), load(t, j &+ 18))
                let y = SIMD4<UInt64>(load(b, j, as: UInt64.self), load(b, j &+ 6), load(b, j &+ 12), load(b, j &+ 18))
                let e = (x & even) &+ (y & even)
                let d = ((x &>> 8) & even) &+ ((y &>> 8) & even)
                let redBlue = (e &+ (d &>> 16) &+ 0x0002_0002) &>> 2
                let green = (d &+ (e &>> 32) &+ 0x0002) &>> 2
                let rgb = (redBlue & byte) | ((green & byte) &<< 8) | (((redBlue &>> 16) & byte) &<< 16)
                let k = 3 &* i
                // Overlapping 4-byte stores, in order: each one's spare byte is overwritten by the next.
                store(UInt32(truncatingIfNeeded: rgb[0]), o, k)
                store(UInt32(truncatingIfNeeded: rgb[1]), o, k &+ 3)
                store(UInt32(truncatingIfNeeded: rgb[2]), o, k &+ 6)
                store(UInt32(truncatingIfNeeded: rgb[3]), o, k &+ 9)
                i &+= 4
            }
            scalarRGB(t + 6 &* i, b + 6 &* i, pairs: pairs &- i, into: o + 3 &* i)
        }

        /// RGBA, 8 output pixels per step: each 32-bit lane is one pixel; even/odd halves are the horizontal pairs.
        /// Blocks whose four alphas differ are redone by the scalar weighted path (skipped when all are opaque).
        static func vectorRGBA(_ t: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, pairs: Int, into o: UnsafeMutablePointer<UInt8>) {
            var i = 0
            let even = SIMD16<UInt32>(repeating: 0x00FF_00FF)
            let even8 = SIMD8<UInt32>(repeating: 0x00FF_00FF)
            let alphaMask = SIMD8<UInt32>(repeating: 0xFF00_0000)
            let opaque = SIMD16<UInt32>(repeating: 0xFF00_0000)
            while i &+ 8 <= pairs {
                let x = load(t, 8 &* i, as: SIMD16<UInt32>.self)
                let y = load(b, 8 &* i, as: SIMD16<UInt32>.self)
                let redBlue = (x & even) &+ (y & even)
                let greenAlpha = ((x &>> 8) & even) &+ ((y &>> 8) & even)
                let rb = ((redBlue.evenHalf &+ redBlue.oddHalf &+ 0x0002_0002) &>> 2) & even8
                let ga = ((greenAlpha.evenHalf &+ greenAlpha.oddHalf &+ 0x0002_0002) &>> 2) & even8
                store(rb | (ga &<< 8), o, 4 &* i)
                if x & y & opaque != opaque {
                    let xe = x.evenHalf
                    let differ = ((xe ^ x.oddHalf) | (xe ^ y.evenHalf) | (xe ^ y.oddHalf)) & alphaMask
                    if differ != .zero {
                        for lane in 0..<8 where differ[lane] != 0 {
                            let p = i &+ lane
                            weightedRGBA(t + 8 &* p, b + 8 &* p, into: o + 4 &* p)
                        }
                    }
                }
                i &+= 8
            }
            scalarRGBA(t + 8 &* i, b + 8 &* i, pairs: pairs &- i, into: o + 4 &* i)
        }

        @inline(__always)
        private static func load<V: BitwiseCopyable>(_ p: UnsafePointer<UInt8>, _ offset: Int, as type: V.Type = V.self) -> V {
            UnsafeRawPointer(p + offset).loadUnaligned(as: V.self)
        }

        @inline(__always)
        private static func store<V: BitwiseCopyable>(_ value: V, _ p: UnsafeMutablePointer<UInt8>, _ offset: Int) {
            UnsafeMutableRawPointer(p + offset).storeBytes(of: value, as: V.self)
        }
    }
#endif
