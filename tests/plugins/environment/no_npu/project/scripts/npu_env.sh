#!/bin/sh
# the client's own environment script: ferry must not overwrite it
. /opt/site/ascend_env.sh
