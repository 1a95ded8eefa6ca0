# Tiler: multi-stage build. Build: docker build -t tiler .
# Serve: docker run --rm -v "$PWD/pyramids:/data" -p 8080:8080 tiler        (every *.dzi under /data, viewer at /)
# Slice: docker run --rm --user "$(id -u):$(id -g)" -v "$PWD:/data" tiler slice /data/huge.jpg -o /data/pyramids

# --- build stage: the official Swift 6.3 image on Debian 12 (bookworm)
FROM swift:6.3-bookworm AS build
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends libpng-dev libjpeg62-turbo-dev libtiff-dev libwebp-dev liblcms2-dev libdeflate-dev libopenslide-dev pkg-config \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# Resolve dependencies first so they cache across source edits.
COPY Package.swift ./
RUN swift package resolve
COPY Sources ./Sources
COPY Tests ./Tests
COPY bench ./bench
RUN swift build -c release --product tiler --static-swift-stdlib \
    && mkdir -p /staging \
    && cp "$(swift build -c release --show-bin-path)/tiler" /staging/

# --- runtime stage: slim Debian 12 with only the image libraries' runtime packages
FROM debian:bookworm-slim
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends libpng16-16 libjpeg62-turbo libtiff6 libwebp7 liblcms2-2 libdeflate0 libopenslide0 ca-certificates curl \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --create-home --home-dir /home/tiler tiler \
    && mkdir -p /data && chown tiler /data
COPY --from=build /staging/tiler /usr/local/bin/tiler
COPY Public /usr/local/bin/Public
USER tiler
WORKDIR /data
# Two malloc arenas from the first thread on (the server caps them itself, but only for threads started after it does):
# a resident size that follows --cache-mb (docs/serving.md, "Sizing a server").
ENV MALLOC_ARENA_MAX=2
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=3s --start-period=5s CMD curl -fsS http://127.0.0.1:8080/healthz >/dev/null || exit 1
ENTRYPOINT ["tiler"]
CMD ["serve", "/data", "--host", "0.0.0.0", "--port", "8080"]
