package io.vigil.testing.redis;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Finds redis-server / redis-cli: system property, environment variable, PATH, then the Debian paths. */
final class Binaries {

    private Binaries() {
    }

    static String redisServer() {
        return find("redis-server", "vigil.redis.server", "REDIS_SERVER");
    }

    static String redisCli() {
        return find("redis-cli", "vigil.redis.cli", "REDIS_CLI");
    }

    private static String find(String name, String property, String env) {
        List<String> candidates = new ArrayList<>();
        String explicit = System.getProperty(property, System.getenv(env));
        if (explicit != null && !explicit.isBlank()) {
            candidates.add(explicit);
        }
        String path = System.getenv("PATH");
        if (path != null) {
            for (String dir : path.split(File.pathSeparator)) {
                if (!dir.isEmpty()) {
                    candidates.add(Path.of(dir, name).toString());
                }
            }
        }
        candidates.add("/usr/bin/" + name);
        candidates.add("/usr/local/bin/" + name);
        for (String candidate : candidates) {
            Path p = Path.of(candidate);
            if (Files.isRegularFile(p) && Files.isExecutable(p)) {
                return p.toString();
            }
        }
        throw new IllegalStateException(name + " not found (looked at -D" + property + ", $" + env
                + ", $PATH, /usr/bin, /usr/local/bin). Install it with `make deps` "
                + "(environments/local/bin/ensure-deps.sh installs the Debian packages redis-server and redis-tools).");
    }
}
