#!/bin/bash
# Run once by the influxdb image after its setup (/docker-entrypoint-initdb.d): maps the bucket to a
# database of the same name, so Grafana's InfluxQL queries reach it through the v1 compatibility API.
set -euo pipefail
influx v1 dbrp create \
  --bucket-id "${DOCKER_INFLUXDB_INIT_BUCKET_ID}" \
  --db "${DOCKER_INFLUXDB_INIT_BUCKET}" \
  --rp autogen \
  --default \
  --org "${DOCKER_INFLUXDB_INIT_ORG}"
