extension Downsample {
    /// Gray, one pixel at a time: four samples per output pixel.
    static func scalarGray(_ t: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, pairs: Int, into o: UnsafeMutablePointer<UInt8>) {
        for i in 0..<pairs {
            let j = 2 &* i
            let s = UInt16(t[j]) &+ UInt16(t[j &+ 1]) &+ UInt16(b[j]) &+ UInt16(b[j &+ 1])
            o[i] = UInt8(truncatingIfNeeded: (s &+ 2) &>> 2)
        }
    }

    /// Gray+alpha, one pixel at a time: alpha-weighted gray, mean alpha.
    static func scalarGrayAlpha(_ t: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, pairs: Int, into o: UnsafeMutablePointer<UInt8>) {
        for i in 0..<pairs {
            let j = 4 &* i
            let k = 2 &* i
            let a0 = UInt32(t[j &+ 1])
            let a1 = UInt32(t[j &+ 3])
            let a2 = UInt32(b[j &+ 1])
            let a3 = UInt32(b[j &+ 3])
            let alphaSum = a0 &+ a1 &+ a2 &+ a3
            o[k &+ 1] = UInt8(truncatingIfNeeded: (alphaSum &+ 2) &>> 2)
            if a0 == a1 && a1 == a2 && a2 == a3 {
                // Equal weights: the weighted mean is exactly the plain mean (and Σa = 0 falls here too).
                let s = UInt32(t[j]) &+ UInt32(t[j &+ 2]) &+ UInt32(b[j]) &+ UInt32(b[j &+ 2])
                o[k] = UInt8(truncatingIfNeeded: (s &+ 2) &>> 2)
            } else {
                let s = UInt32(t[j]) &* a0 &+ UInt32(t[j &+ 2]) &* a1 &+ UInt32(b[j]) &* a2 &+ UInt32(b[j &+ 2]) &* a3
                o[k] = UInt8(truncatingIfNeeded: (s &+ alphaSum &>> 1) / alphaSum)
            }
        }
    }

    /// RGB, one pixel at a time: three independent channels, four samples each.
    static func scalarRGB(_ t: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, pairs: Int, into o: UnsafeMutablePointer<UInt8>) {
        for i in 0..<pairs {
            let j = 6 &* i
            let k = 3 &* i
            for c in 0..<3 {
                let s = UInt16(t[j &+ c]) &+ UInt16(t[j &+ 3 &+ c]) &+ UInt16(b[j &+ c]) &+ UInt16(b[j &+ 3 &+ c])
                o[k &+ c] = UInt8(truncatingIfNeeded: (s &+ 2) &>> 2)
            }
        }
    }

    /// RGBA, one pixel at a time: alpha-weighted colour, mean alpha.
    static func scalarRGBA(_ t: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, pairs: Int, into o: UnsafeMutablePointer<UInt8>) {
        for i in 0..<pairs {
            let j = 8 &* i
            let k = 4 &* i
            let a0 = t[j &+ 3]
            if a0 == t[j &+ 7] && a0 == b[j &+ 3] && a0 == b[j &+ 7] {
                // Equal weights (the common opaque case): the weighted mean is exactly the plain mean.
                for c in 0..<4 {
                    let s = UInt16(t[j &+ c]) &+ UInt16(t[j &+ 4 &+ c]) &+ UInt16(b[j &+ c]) &+ UInt16(b[j &+ 4 &+ c])
                    o[k &+ c] = UInt8(truncatingIfNeeded: (s &+ 2) &>> 2)
                }
            } else {
                weightedRGBA(t + j, b + j, into: o + k)
            }
        }
    }

    /// One RGBA output pixel from a 2×2 block whose alphas differ (so Σa > 0).
    @inline(__always)
    static func weightedRGBA(_ t: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, into o: UnsafeMutablePointer<UInt8>) {
        let a0 = UInt32(t[3])
        let a1 = UInt32(t[7])
        let a2 = UInt32(b[3])
        let a3 = UInt32(b[7])
        let alphaSum = a0 &+ a1 &+ a2 &+ a3
        let half = alphaSum &>> 1
        for c in 0..<3 {
            let s = UInt32(t[c]) &* a0 &+ UInt32(t[4 &+ c]) &* a1 &+ UInt32(b[c]) &* a2 &+ UInt32(b[4 &+ c]) &* a3
            o[c] = UInt8(truncatingIfNeeded: (s &+ half) / alphaSum)
        }
        o[3] = UInt8(truncatingIfNeeded: (alphaSum &+ 2) &>> 2)
    }
}
