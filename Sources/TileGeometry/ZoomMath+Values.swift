extension ZoomMath {
    /// A size: an image in pixels or a viewport in points.
    public struct Size: Sendable, Hashable {
        /// The width.
        public var width: Double
        /// The height.
        public var height: Double

        /// Creates a size.
        public init(width: Double, height: Double) {
            self.width = width
            self.height = height
        }
    }

    /// A point or vector in points of the zoomed content: a content offset or a velocity.
    public struct Point: Sendable, Hashable {
        /// The horizontal component.
        public var x: Double
        /// The vertical component.
        public var y: Double

        /// Creates a point.
        public init(x: Double, y: Double) {
            self.x = x
            self.y = y
        }
    }

    /// A content inset in points (`UIEdgeInsets`): extra scrollable space around the zoomed content.
    public struct Insets: Sendable, Hashable {
        /// Space above the content.
        public var top: Double
        /// Space left of the content.
        public var left: Double
        /// Space below the content.
        public var bottom: Double
        /// Space right of the content.
        public var right: Double

        /// Creates insets.
        public init(top: Double, left: Double, bottom: Double, right: Double) {
            self.top = top
            self.left = left
            self.bottom = bottom
            self.right = right
        }

        /// No inset.
        public static let zero = Insets(top: 0, left: 0, bottom: 0, right: 0)
    }

    /// Where ``ZoomMath/zoom(to:content:viewport:minimumZoomScale:maximumZoomScale:)`` leaves the scroll view.
    public struct ZoomTarget: Sendable, Hashable {
        /// The new zoom scale, points per image pixel.
        public var zoomScale: Double
        /// The new content offset, in points.
        public var offset: Point
        /// The centring inset at the new zoom scale, in points.
        public var inset: Insets

        /// Creates a zoom target.
        public init(zoomScale: Double, offset: Point, inset: Insets) {
            self.zoomScale = zoomScale
            self.offset = offset
            self.inset = inset
        }
    }
}
