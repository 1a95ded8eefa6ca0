extension PyramidFixtures {
    /// Writes the SVS-shaped files and the OME-TIFF with tifffile, then describes every file's directories as JSON
    /// (`{file: [ifd…]}`, SubIFDs after the IFD that holds them): what the writers wrote, for the tests to compare with.
    ///
    /// Debian's tifffile encodes JPEG only through imagecodecs, which Debian lacks; the SVS tiles are encoded by Pillow
    /// (whole JPEG files, no JPEGTables, as some Aperio writers store them), so tifffile is given an identity "encoder".
    static let script = """
        import io, json, sys
        import numpy as np
        import tifffile
        from PIL import Image

        tifffile.TIFF.COMPRESSORS._codecs[7] = lambda data, **kwargs: data
        folder, source = sys.argv[1], sys.argv[2]
        picture = np.asarray(Image.open(source).convert('RGB'))
        height, width = picture.shape[:2]

        def resized(a, w, h):
            return np.asarray(Image.fromarray(a).resize((w, h), Image.BILINEAR))

        def jpeg_tiles(a, tile):
            for y in range(0, a.shape[0], tile):
                for x in range(0, a.shape[1], tile):
                    padded = np.zeros((tile, tile, 3), np.uint8)
                    part = a[y:y + tile, x:x + tile]
                    padded[:part.shape[0], :part.shape[1]] = part
                    out = io.BytesIO()
                    Image.fromarray(padded).save(out, 'JPEG', quality=80)
                    yield out.getvalue()

        def svs(name, big):
            head = 'Aperio Image Library v12.0.15 \\r\\n'
            small = resized(picture, width // 4, height // 4)
            with tifffile.TiffWriter(folder + '/' + name, bigtiff=big) as t:
                def tiled(a, description):
                    t.write(jpeg_tiles(a, 240), shape=a.shape, dtype='uint8', tile=(240, 240), compression=7, photometric='ycbcr',
                            subsampling=(2, 2), description=description, metadata=None)
                tiled(picture, head + '%dx%d [0,0 %dx%d] (240x240) JPEG/RGB Q=80|AppMag = 20|MPP = 0.4990' % (width, height, width, height))
                t.write(resized(picture, width // 8, height // 8), photometric='rgb', rowsperstrip=16,
                        description=head + '%dx%d -> %dx%d - ' % (width, height, width // 8, height // 8), metadata=None)
                tiled(small, head + '%dx%d -> %dx%d' % (width, height, width // 4, height // 4))
                label = np.full((80, 100, 3), 200, np.uint8)
                t.write(label, photometric='rgb', subfiletype=1, description=head + 'label 100x80', metadata=None)
                t.write(label, photometric='rgb', subfiletype=9, description=head + 'macro 100x80', metadata=None)

        def ome(name):
            levels = [picture]
            while min(levels[-1].shape[:2]) > 200:
                p = levels[-1]
                levels.append(resized(p, p.shape[1] // 2, p.shape[0] // 2))
            with tifffile.TiffWriter(folder + '/' + name) as t:
                t.write(levels[0], subifds=len(levels) - 1, tile=(256, 256), compression='zlib', photometric='rgb', metadata={'axes': 'YXS'})
                for level in levels[1:]:
                    t.write(level, subfiletype=1, tile=(256, 256), compression='zlib', photometric='rgb')

        svs('aperio.svs', False)
        svs('aperio-big.svs', True)
        ome('image.ome.tif')

        def describe(page, kind):
            return {'kind': kind, 'width': page.imagewidth, 'height': page.imagelength, 'tileWidth': page.tilewidth,
                    'tileHeight': page.tilelength, 'compression': int(page.compression), 'subfileType': int(page.subfiletype),
                    'description': page.description[:60], 'offsets': [int(o) for o in page.dataoffsets],
                    'counts': [int(c) for c in page.databytecounts], 'jpegTables': (page.jpegtables or b'').hex()}

        catalog = {}
        for name in sys.argv[3:]:
            with tifffile.TiffFile(folder + '/' + name) as f:
                ifds = []
                for page in f.pages:
                    ifds.append(describe(page, 'main'))
                    for sub in (page.pages or []):
                        ifds.append(describe(sub, 'sub'))
                catalog[name] = {'bigTIFF': f.is_bigtiff, 'ifds': ifds}
        json.dump(catalog, sys.stdout)
        """
}
